#include "load/shape_compile.hpp"

#include "expr/lexer.hpp"
#include "load/param_types.hpp"

#include <cctype>

namespace tileops::manifest::detail {
namespace {

bool contains_index(const Expr& e, uint32_t i, uint32_t slot) {
  const Node& n = e.nodes[i];
  if (n.kind == NodeKind::Ref) return RefKind(n.sub) == RefKind::Index && n.first == slot;
  for (uint32_t k = 0; k < n.count; ++k)
    if (contains_index(e, e.kids[n.first + k], slot)) return true;
  return false;
}

// Whether node i is linear in index `slot`, which appears exactly once, reached only
// through +, -, unary minus and multiplication by a factor free of it.
bool linear_in(const Expr& e, uint32_t i, uint32_t slot) {
  const Node& n = e.nodes[i];
  if (n.kind == NodeKind::Ref) return RefKind(n.sub) == RefKind::Index && n.first == slot;
  if (n.kind == NodeKind::Unary) return linear_in(e, e.kids[n.first], slot);
  if (n.kind != NodeKind::Binary) return false;
  auto op = BinaryOp(n.sub);
  if (op != BinaryOp::Add && op != BinaryOp::Sub && op != BinaryOp::Mul) return false;
  uint32_t a = e.kids[n.first], b = e.kids[n.first + 1];
  return (linear_in(e, a, slot) && !contains_index(e, b, slot)) ||
         (!contains_index(e, a, slot) && linear_in(e, b, slot));
}

uint64_t solvable_indices(const Expr& e, const CompiledSpec& spec) {
  uint64_t out = 0;
  for (uint32_t slot = 0; slot < spec.indices.size(); ++slot) {
    if (!(e.deps.indices >> slot & 1) || spec.indices[slot].kind != IndexKind::Dim) continue;
    if (linear_in(e, e.root, slot)) out |= uint64_t(1) << slot;
  }
  return out;
}

bool is_index_of(const Expr& e, const CompiledSpec& spec, IndexKind kind) {
  const Node& root = e.root_node();
  return root.kind == NodeKind::Ref && RefKind(root.sub) == RefKind::Index && spec.indices[root.first].kind == kind;
}

const char* index_kind_name(IndexKind k) {
  return k == IndexKind::Dim ? "a Dim" : k == IndexKind::Shape ? "a Shape" : "a DType";
}

ShapeTemplate compile_plain(SpecContext& cx, const std::string& text, const Where& where) {
  ShapeTemplate out;
  out.text = text;
  std::string trimmed = trim(text);
  auto items = trimmed.empty() || trimmed[0] != '[' ? std::nullopt : bracketed_items(trimmed, 0);
  if (!items) {
    cx.problem(where, "shape '" + text + "' must be a list in brackets ([M, *S], [] for rank 0) or a type family application (Mat[t, M, K])");
    return out;
  }
  for (const BracketItem& piece : *items) {
    const std::string& item = piece.text;
    bool splice = item[0] == '*';
    std::string body = splice ? trim(std::string_view(item).substr(1)) : item;
    size_t offset = piece.offset + (splice ? item.find_first_not_of(" \t", 1) : 0);
    auto expr = cx.compile(body, where, {}, &trimmed, offset);
    if (!expr) continue;
    const Node& root = expr->root_node();
    ShapeItem compiled;
    compiled.kind = ItemKind::Scalar;
    compiled.text = body;
    if (splice) {
      if (is_index_of(*expr, cx.spec, IndexKind::Shape)) {
        compiled.kind = ItemKind::SpliceIndex;
        compiled.slot = root.first;
      } else if (root.kind == NodeKind::Ref && RefKind(root.sub) == RefKind::Index) {
        cx.problem(where, "in '" + text + "': '" + item + "' splices " + body + ", which is " +
                              index_kind_name(cx.spec.indices[root.first].kind) + " index; only a Shape splices");
        continue;
      } else if (expr->type() != StaticType::Ints && expr->type() != StaticType::Seq && expr->type() != StaticType::Any) {
        cx.problem(where, "in '" + text + "': '" + item + "' needs a shape or a list of ints, got " + type_name(expr->type()));
        continue;
      } else {
        compiled.kind = ItemKind::SpliceExpr;
        compiled.expr = std::move(expr);
      }
    } else if (is_index_of(*expr, cx.spec, IndexKind::Dim)) {
      compiled.kind = ItemKind::Dim;
      compiled.slot = root.first;
    } else if (root.kind == NodeKind::Ref && RefKind(root.sub) == RefKind::Index) {
      cx.problem(where, "in '" + text + "': " + body + " is " + index_kind_name(cx.spec.indices[root.first].kind) +
                            " index" + (cx.spec.indices[root.first].kind == IndexKind::Shape ? "; splice it with *" + body : ""));
      continue;
    } else if (expr->type() != StaticType::Int && expr->type() != StaticType::Bool && expr->type() != StaticType::Any) {
      cx.problem(where, "in '" + text + "': axis '" + item + "' must be an int, got " + type_name(expr->type()) +
                            (expr->type() == StaticType::Ints ? " (splice it with *)" : ""));
      continue;
    } else {
      compiled.solvable = solvable_indices(*expr, cx.spec);
      compiled.expr = std::move(expr);
    }
    out.items.push_back(std::move(compiled));
  }
  return out;
}

// The case's shape text with the family's params replaced by the application's
// arguments: Mat's "[C, R]" applied to (trans_a, M, K) is "[K, M]".
std::string substitute(const std::string& shape, const TypeFamily& family, const std::vector<BracketItem>& args) {
  std::string out;
  size_t copied = 0;
  for (const Token& t : tokenize(shape)) {
    if (t.kind != TokenKind::Name) continue;
    for (size_t p = 0; p < family.params.size(); ++p) {
      if (family.params[p].name != t.text) continue;
      const std::string& arg = args[p].text;
      bool simple = std::all_of(arg.begin(), arg.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
      });
      out += shape.substr(copied, t.pos - copied) + (simple ? arg : "(" + arg + ")");
      copied = t.pos + t.text.size();
    }
  }
  return out + shape.substr(copied);
}

void compile_family(SpecContext& cx, const TypeFamily& family, const std::string& text, size_t open,
                    const Where& where, CompiledTensor& out) {
  auto args = bracketed_items(text, open);
  if (!args) {
    cx.problem(where, "shape '" + text + "': unbalanced brackets");
    return;
  }
  if (args->size() != family.params.size()) {
    cx.problem(where, "shape '" + text + "': " + family.name + " takes " + std::to_string(family.params.size()) +
                          " arguments, got " + std::to_string(args->size()));
    return;
  }
  if (family.match >= family.params.size()) return;  // types.yaml reported it
  FamilyShape shape;
  shape.family = family.name;
  const BracketItem& selector = (*args)[family.match];
  shape.selector = cx.compile(selector.text, where, {}, &text, selector.offset);
  if (!shape.selector) return;
  if (!shape.selector->root_node().params_only) {
    cx.problem(where, "shape '" + text + "': " + family.name + "'s argument '" + selector.text +
                          "' selects the case, so it must read only params");
    return;
  }
  for (const TypeFamily::Case& c : family.cases)
    shape.cases.emplace_back(c.when, compile_plain(cx, substitute(c.is, family, *args), where));
  out.family = std::move(shape);
}

}  // namespace

std::optional<std::vector<BracketItem>> bracketed_items(const std::string& text, size_t open) {
  std::vector<BracketItem> items;
  auto item = [&](size_t begin, size_t end) {
    std::string_view raw = std::string_view(text).substr(begin, end - begin);
    size_t lead = raw.find_first_not_of(" \t\n");
    return BracketItem{trim(raw), begin + (lead == std::string_view::npos ? 0 : lead)};
  };
  int depth = 0;
  char quote = 0;
  size_t start = open + 1;
  for (size_t k = open; k < text.size(); ++k) {
    char c = text[k];
    if (quote) {
      if (c == quote) quote = 0;
      continue;
    }
    if (c == '\'' || c == '"') quote = c;
    else if (c == '[' || c == '(') ++depth;
    else if (c == ']' || c == ')') {
      if (--depth == 0) {
        if (c != ']' || k + 1 != text.size()) return std::nullopt;
        BracketItem last = item(start, k);
        if (!last.text.empty() || !items.empty()) items.push_back(last);
        for (const auto& i : items)
          if (i.text.empty()) return std::nullopt;
        return items;
      }
    } else if (c == ',' && depth == 1) {
      items.push_back(item(start, k));
      start = k + 1;
    }
  }
  return std::nullopt;
}

void compile_shape(SpecContext& cx, const std::string& text, const Where& where, CompiledTensor& out) {
  std::string trimmed = trim(text);
  size_t name_end = 0;
  while (name_end < trimmed.size() && (std::isalnum(static_cast<unsigned char>(trimmed[name_end])) || trimmed[name_end] == '_'))
    ++name_end;
  if (name_end > 0 && name_end < trimmed.size() && trimmed[name_end] == '[') {
    if (const TypeFamily* family = cx.family(trimmed.substr(0, name_end)))
      return compile_family(cx, *family, trimmed, name_end, where, out);
    cx.problem(where, "shape '" + text + "': unknown type family '" + trimmed.substr(0, name_end) + "'");
    return;
  }
  out.shape = compile_plain(cx, text, where);
}

void compile_dtype(SpecContext& cx, const std::string& text, const Where& where, DTypeTemplate& out) {
  auto expr = cx.compile(text, where);
  if (!expr) return;
  if (is_index_of(*expr, cx.spec, IndexKind::DType)) {
    out.binds_index = true;
    out.slot = expr->root_node().first;
    return;
  }
  if (expr->type() != StaticType::DType && expr->type() != StaticType::Any) {
    cx.problem(where, "dtype '" + text + "' must be a DType index, a dtype name, a dtype param or promote_int_to_float(T); got " +
                          type_name(expr->type()));
    return;
  }
  out.expr = std::move(expr);
}

}  // namespace tileops::manifest::detail

// Precedence climbing over binding powers, lowest first:
//   a if c else b  <  or  <  and  <  not  <  comparisons (chained)  <  + -  <  * / // %
//   <  unary -  <  postfix (call, subscript, slice, attribute)
#include "expr/parser.hpp"

#include "expr/lexer.hpp"

#include <utility>

namespace tileops::manifest::detail {
namespace {

enum Power : int { kNone = 0, kOr = 2, kAnd = 3, kNot = 4, kCompare = 5, kSum = 6, kProduct = 7, kUnary = 8 };

bool primitive_named(std::string_view name, Primitive& out) {
  for (uint8_t p = 0; p <= uint8_t(Primitive::Present); ++p) {
    if (name == primitive_name(Primitive(p))) {
      out = Primitive(p);
      return true;
    }
  }
  return false;
}

class Parser {
 public:
  explicit Parser(std::string text) { expr_.text = std::move(text); }

  Expr run() {
    tokens_ = tokenize(expr_.text);
    expr_.root = expression();
    if (peek().kind != TokenKind::End)
      throw SyntaxError(peek().pos, std::string("unexpected ") + describe(peek()));
    return std::move(expr_);
  }

 private:
  const Token& peek(size_t ahead = 0) const { return tokens_[std::min(at_ + ahead, tokens_.size() - 1)]; }
  const Token& advance() { return tokens_[at_++]; }
  bool accept(TokenKind kind) {
    if (peek().kind != kind) return false;
    ++at_;
    return true;
  }
  void expect(TokenKind kind, const char* context) {
    if (!accept(kind))
      throw SyntaxError(peek().pos, std::string("expected ") + token_text(kind) + " " + context +
                                        ", found " + describe(peek()));
  }
  static std::string describe(const Token& t) {
    if (t.kind == TokenKind::End) return "the end of the expression";
    return "'" + std::string(t.text) + "'";
  }

  uint32_t add(NodeKind kind, uint32_t pos, std::initializer_list<uint32_t> kids = {}, uint8_t sub = 0) {
    return add(kind, pos, std::vector<uint32_t>(kids), sub);
  }
  uint32_t add(NodeKind kind, uint32_t pos, const std::vector<uint32_t>& kids, uint8_t sub = 0) {
    Node n{kind};
    n.sub = sub;
    n.pos = pos;
    n.first = uint32_t(expr_.kids.size());
    n.count = uint32_t(kids.size());
    expr_.kids.insert(expr_.kids.end(), kids.begin(), kids.end());
    expr_.nodes.push_back(n);
    return uint32_t(expr_.nodes.size() - 1);
  }
  uint32_t constant(Value v, uint32_t pos) {
    Node n{NodeKind::Const};
    n.pos = pos;
    n.first = expr_.add_constant(v);
    expr_.nodes.push_back(n);
    return uint32_t(expr_.nodes.size() - 1);
  }

  uint32_t expression() {
    uint32_t value = binary(kOr);
    if (peek().kind != TokenKind::If) return value;
    uint32_t pos = advance().pos;
    uint32_t condition = binary(kOr);
    expect(TokenKind::Else, "after 'a if c'");
    uint32_t otherwise = expression();
    return add(NodeKind::IfElse, pos, {value, condition, otherwise});
  }

  static int infix_power(const Token& t, const Token& next) {
    switch (t.kind) {
      case TokenKind::Or: return kOr;
      case TokenKind::And: return kAnd;
      case TokenKind::Eq: case TokenKind::Ne: case TokenKind::Lt: case TokenKind::Le:
      case TokenKind::Gt: case TokenKind::Ge: case TokenKind::In: return kCompare;
      case TokenKind::Not: return next.kind == TokenKind::In ? kCompare : kNone;
      case TokenKind::Plus: case TokenKind::Minus: return kSum;
      case TokenKind::Star: case TokenKind::Slash: case TokenKind::SlashSlash:
      case TokenKind::Percent: return kProduct;
      default: return kNone;
    }
  }

  uint32_t binary(int min_power) {
    uint32_t lhs = prefix(min_power);
    while (true) {
      int power = infix_power(peek(), peek(1));
      if (power == kNone || power < min_power) return lhs;
      if (power == kCompare) {
        lhs = comparison_chain(lhs);
        continue;
      }
      const Token& op = advance();
      uint32_t rhs = binary(power + 1);  // left associative
      if (op.kind == TokenKind::Or) lhs = add(NodeKind::Or, op.pos, {lhs, rhs});
      else if (op.kind == TokenKind::And) lhs = add(NodeKind::And, op.pos, {lhs, rhs});
      else lhs = add(NodeKind::Binary, op.pos, {lhs, rhs}, uint8_t(binary_op(op.kind)));
    }
  }

  static BinaryOp binary_op(TokenKind kind) {
    switch (kind) {
      case TokenKind::Plus: return BinaryOp::Add;
      case TokenKind::Minus: return BinaryOp::Sub;
      case TokenKind::Star: return BinaryOp::Mul;
      case TokenKind::Slash: return BinaryOp::Div;
      case TokenKind::SlashSlash: return BinaryOp::FloorDiv;
      default: return BinaryOp::Mod;
    }
  }

  // `0 <= a < n` is `0 <= a and a < n` with `a` evaluated once.
  uint32_t comparison_chain(uint32_t first) {
    std::vector<uint32_t> operands{first};
    uint32_t ops_start = uint32_t(expr_.compare_ops.size());
    uint32_t pos = peek().pos;
    while (infix_power(peek(), peek(1)) == kCompare) {
      expr_.compare_ops.push_back(compare_op());
      operands.push_back(binary(kCompare + 1));
    }
    uint32_t node = add(NodeKind::Compare, pos, operands);
    expr_.nodes[node].aux = ops_start;
    return node;
  }

  CompareOp compare_op() {
    const Token& t = advance();
    switch (t.kind) {
      case TokenKind::Eq: return CompareOp::Eq;
      case TokenKind::Ne: return CompareOp::Ne;
      case TokenKind::Lt: return CompareOp::Lt;
      case TokenKind::Le: return CompareOp::Le;
      case TokenKind::Gt: return CompareOp::Gt;
      case TokenKind::Ge: return CompareOp::Ge;
      case TokenKind::In: return CompareOp::In;
      default: advance(); return CompareOp::NotIn;  // 'not' 'in'
    }
  }

  uint32_t prefix(int min_power) {
    const Token& t = peek();
    if (t.kind == TokenKind::Not) {
      if (min_power > kNot) throw SyntaxError(t.pos, "'not' needs parentheses here");
      advance();
      return add(NodeKind::Not, t.pos, {binary(kNot)});
    }
    if (t.kind == TokenKind::Minus || t.kind == TokenKind::Plus) {
      advance();
      auto op = t.kind == TokenKind::Minus ? UnaryOp::Neg : UnaryOp::Pos;
      return add(NodeKind::Unary, t.pos, {binary(kUnary)}, uint8_t(op));
    }
    return postfix(atom());
  }

  uint32_t atom() {
    const Token& t = advance();
    switch (t.kind) {
      case TokenKind::Int: return constant(Value::integer(t.int_value), t.pos);
      case TokenKind::Float: return constant(Value::real(t.float_value), t.pos);
      case TokenKind::String: return constant(expr_.own_string(t.string_value), t.pos);
      case TokenKind::True: return constant(Value::boolean(true), t.pos);
      case TokenKind::False: return constant(Value::boolean(false), t.pos);
      case TokenKind::None: return constant(Value::none(), t.pos);
      case TokenKind::Name: {
        Node n{NodeKind::Name};
        n.pos = t.pos;
        n.first = uint32_t(expr_.names.size());
        expr_.names.emplace_back(t.text);
        expr_.nodes.push_back(n);
        return uint32_t(expr_.nodes.size() - 1);
      }
      case TokenKind::LParen: return parenthesised(t.pos);
      case TokenKind::LBracket: return add(NodeKind::List, t.pos, display_items(TokenKind::RBracket));
      case TokenKind::Star: throw SyntaxError(t.pos, "'*' splices only inside [...] or (...)");
      default: throw SyntaxError(t.pos, "unexpected " + describe(t));
    }
  }

  uint32_t parenthesised(uint32_t pos) {
    if (accept(TokenKind::RParen)) return add(NodeKind::Tuple, pos, {});
    uint32_t first = display_item();
    if (accept(TokenKind::RParen)) {
      if (expr_.nodes[first].kind == NodeKind::Splice)
        throw SyntaxError(pos, "a splice needs a tuple: write (*x,)");
      return first;
    }
    expect(TokenKind::Comma, "in a tuple");
    std::vector<uint32_t> items{first};
    for (auto& more : display_items(TokenKind::RParen)) items.push_back(more);
    return add(NodeKind::Tuple, pos, items);
  }

  // Items up to `close`, comma separated, a trailing comma allowed.
  std::vector<uint32_t> display_items(TokenKind close) {
    std::vector<uint32_t> items;
    while (!accept(close)) {
      items.push_back(display_item());
      if (!accept(TokenKind::Comma)) {
        expect(close, "to close the list");
        break;
      }
    }
    return items;
  }

  uint32_t display_item() {
    if (peek().kind == TokenKind::Star) {
      uint32_t pos = advance().pos;
      return add(NodeKind::Splice, pos, {binary(kSum)});
    }
    return expression();
  }

  uint32_t postfix(uint32_t node) {
    while (true) {
      const Token& t = peek();
      if (t.kind == TokenKind::LParen) {
        node = call(node);
      } else if (t.kind == TokenKind::LBracket) {
        advance();
        node = subscript(node, t.pos);
      } else if (t.kind == TokenKind::Dot) {
        advance();
        const Token& name = advance();
        if (name.kind != TokenKind::Name) throw SyntaxError(name.pos, "expected an attribute name after '.'");
        Attribute attr;
        if (name.text == "value") attr = Attribute::Value;
        else if (name.text == "ndim") attr = Attribute::Ndim;
        else if (name.text == "shape") attr = Attribute::Shape;
        else
          throw SyntaxError(name.pos, "unknown attribute '." + std::string(name.text) +
                                          "' (known: .value, .ndim, .shape)");
        node = add(NodeKind::Attr, t.pos, {node}, uint8_t(attr));
      } else {
        return node;
      }
    }
  }

  uint32_t call(uint32_t callee) {
    const Node& c = expr_.nodes[callee];
    uint32_t pos = c.pos;
    if (c.kind != NodeKind::Name) throw SyntaxError(peek().pos, "only primitives can be called");
    const std::string& name = expr_.names[c.first];
    Primitive p;
    if (!primitive_named(name, p)) throw SyntaxError(pos, "unknown primitive '" + name + "'");
    advance();  // (
    std::vector<uint32_t> args;
    while (!accept(TokenKind::RParen)) {
      if (peek().kind == TokenKind::Star) throw SyntaxError(peek().pos, "primitives take no splices");
      args.push_back(expression());
      if (!accept(TokenKind::Comma)) {
        expect(TokenKind::RParen, "to close the call");
        break;
      }
    }
    // The callee's Name node stays in the array, unreferenced; it costs nothing.
    return add(NodeKind::Call, pos, args, uint8_t(p));
  }

  uint32_t subscript(uint32_t sequence, uint32_t pos) {
    auto bound = [&]() -> uint32_t {
      TokenKind k = peek().kind;
      if (k == TokenKind::Colon || k == TokenKind::RBracket) return constant(Value::none(), peek().pos);
      return expression();
    };
    uint32_t start = bound();
    if (accept(TokenKind::Colon)) {
      uint32_t stop = bound();
      uint32_t step = accept(TokenKind::Colon) ? bound() : constant(Value::none(), peek().pos);
      expect(TokenKind::RBracket, "to close the slice");
      return add(NodeKind::Slice, pos, {sequence, start, stop, step});
    }
    if (expr_.nodes[start].kind == NodeKind::Const && expr_.constants[expr_.nodes[start].first].is_none() &&
        peek().kind == TokenKind::RBracket)
      throw SyntaxError(pos, "empty subscript");
    if (accept(TokenKind::Comma)) {  // Family[a, b, c]
      std::vector<uint32_t> items{start};
      for (auto more : display_items(TokenKind::RBracket)) items.push_back(more);
      return add(NodeKind::Subscript, pos, {sequence, add(NodeKind::Tuple, pos, items)});
    }
    expect(TokenKind::RBracket, "to close the subscript");
    return add(NodeKind::Subscript, pos, {sequence, start});
  }

  Expr expr_;
  std::vector<Token> tokens_;
  size_t at_ = 0;
};

}  // namespace

Expr parse_expression(std::string text) { return Parser(std::move(text)).run(); }

}  // namespace tileops::manifest::detail

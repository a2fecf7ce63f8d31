// The expression language: precedence, literals, slices, attributes, every primitive,
// and the load-time errors (unknown names and primitives, arity, types).
#include "expr_harness.hpp"

#include <doctest/doctest.h>

#include <random>
#include <string>
#include <vector>

using tileops::manifest::test::ExprHarness;
using namespace tileops;
using namespace tileops::manifest;
using namespace tileops::manifest::detail;

namespace {

ExprHarness harness() {
  ExprHarness h;
  h.param("eps", ParamKind::Float, none(), true)
      .param("alpha", ParamKind::Float, 2.5)
      .param("dim", ParamKind::IntList, ints({1, -1}))
      .param("k", ParamKind::Int, int64_t(3))
      .param("approximate", ParamKind::Enum, std::string("tanh"))
      .param("keepdim", ParamKind::Bool, false)
      .dim("M", 8)
      .dim("N", 5)
      .dim("U", std::nullopt)
      .shape("S", {2, 3, 4})
      .shape("E", {})
      .dtype("T", dtypes::float16)
      .dtype("I", dtypes::int32)
      .input("x", std::vector<int64_t>{2, 3, 4})
      .input("w", std::nullopt);
  return h;
}

}  // namespace

TEST_CASE("arithmetic follows Python's precedence and semantics") {
  auto h = harness();
  CHECK(h.eval("1 + 2 * 3") == "7");
  CHECK(h.eval("(1 + 2) * 3") == "9");
  CHECK(h.eval("10 - 4 - 3") == "3");
  CHECK(h.eval("-2 * 3") == "-6");
  CHECK(h.eval("- -2") == "2");
  CHECK(h.eval("2 * -M") == "-16");
  CHECK(h.eval("7 // 2") == "3");
  CHECK(h.eval("-7 // 2") == "-4");
  CHECK(h.eval("-7 % 3") == "2");
  CHECK(h.eval("7 % -3") == "-2");
  CHECK(h.eval("7 / 2") == "3.5");
  CHECK(h.eval("7.5 // 2") == "3");
  CHECK(h.eval("alpha % 1 == 0") == "false");
  CHECK(h.eval("M * N + k") == "43");
  CHECK(h.eval("1 + 2.5") == "3.5");
  CHECK(h.eval("True + 1") == "2");
  CHECK(h.eval("9223372036854775807 + 1") == "error: integer overflow");
  CHECK(h.eval("M // 0") == "error: division by zero: 8 // 0");
  CHECK(h.eval("M % 0") == "error: division by zero: 8 % 0");
  CHECK(h.eval("(-9223372036854775807 - 1) // -1") == "error: integer overflow");
  CHECK(h.eval("(-9223372036854775807 - 1) % -1") == "0");
  CHECK(h.eval("-7 // -1") == "7");
}

TEST_CASE("boolean operators, ternary and chained comparisons") {
  auto h = harness();
  CHECK(h.eval("not 1 == 2") == "true");
  CHECK(h.eval("True or False and False") == "true");
  CHECK(h.eval("not True or True") == "true");
  CHECK(h.eval("not (True or True)") == "false");
  CHECK(h.eval("1 if False else 2 if True else 3") == "2");
  CHECK(h.eval("1 + 2 if False else 5") == "5");
  CHECK(h.eval("(4 if present(w) else 3) * M") == "24");
  CHECK(h.eval("0 <= k < M") == "true");
  CHECK(h.eval("0 <= M < k") == "false");
  CHECK(h.eval("1 < 2 < 3 > 2") == "true");
  CHECK(h.eval("1 < 3 < 2") == "false");
  CHECK(h.eval("M == 8 == True") == "false");  // chained: M == 8 and 8 == True
  CHECK(h.eval("2 in (1, 2)") == "true");
  CHECK(h.eval("3 not in [1, 2]") == "true");
  CHECK(h.eval("approximate in ('none', 'tanh')") == "true");
  CHECK(h.eval("approximate == 'none'") == "false");
  CHECK(h.eval("T == float16 and I != T") == "true");
  CHECK(h.eval("0 and U") == "0");  // short circuit: U (unbound) never read
  CHECK(h.eval("M or U") == "8");
  CHECK(h.eval("U") == "error: index 'U' has no value yet");
}

TEST_CASE("literals, lists and tuples") {
  auto h = harness();
  CHECK(h.eval("True") == "true");
  CHECK(h.eval("true") == "true");
  CHECK(h.eval("false") == "false");
  CHECK(h.eval("None") == "none");
  CHECK(h.eval("null") == "none");
  CHECK(h.eval("'tanh'") == "'tanh'");
  CHECK(h.eval("\"tanh\"") == "'tanh'");
  CHECK(h.eval("1e-6") == "1e-06");
  CHECK(h.eval(".5") == "0.5");
  CHECK(h.eval("[]") == "[]");
  CHECK(h.eval("()") == "[]");
  CHECK(h.eval("(1,)") == "[1]");
  CHECK(h.eval("(M)") == "8");
  CHECK(h.eval("[1, *S, M]") == "[1, 2, 3, 4, 8]");
  CHECK(h.eval("[*E]") == "[]");
  CHECK(h.eval("S + [5]") == "[2, 3, 4, 5]");
  CHECK(h.eval("[1, 2] * 2") == "[1, 2, 1, 2]");
  CHECK(h.eval("[] * 9223372036854775807") == "[]");  // once a loop of 2^63 empty rounds
  CHECK(h.eval("[0] * 9223372036854775807") ==
        "error: a sequence of 1 repeated 9223372036854775807 times is longer than 65536 elements");
  CHECK(h.eval("3 * S") == "[2, 3, 4, 2, 3, 4, 2, 3, 4]");
  CHECK(h.eval("[1, 2.5]") == "[1, 2.5]");
  CHECK(h.eval("(1, 'a') == (1, 'a')") == "true");
  CHECK(h.eval("S == [2, 3, 4]") == "true");
  CHECK(h.eval("S < [2, 4]") == "true");
}

TEST_CASE("subscripts and slices") {
  auto h = harness();
  CHECK(h.eval("S[0]") == "2");
  CHECK(h.eval("S[-1]") == "4");
  CHECK(h.eval("S[1:]") == "[3, 4]");
  CHECK(h.eval("S[:-1]") == "[2, 3]");
  CHECK(h.eval("S[::2]") == "[2, 4]");
  CHECK(h.eval("S[::-1]") == "[4, 3, 2]");
  CHECK(h.eval("S[5:]") == "[]");
  CHECK(h.eval("S[-10:2]") == "[2, 3]");
  CHECK(h.eval("dim[0]") == "1");
  CHECK(h.eval("S[3]") == "error: index 3 is out of range for [2, 3, 4]");
  CHECK(h.eval("S[::0]") == "error: slice step cannot be zero");
  CHECK(h.eval("len(x.shape[1:])") == "2");
}

TEST_CASE("attributes and present()") {
  auto h = harness();
  CHECK(h.eval("x.shape") == "[2, 3, 4]");
  CHECK(h.eval("x.ndim") == "3");
  CHECK(h.eval("present(x)") == "true");
  CHECK(h.eval("present(w)") == "false");
  CHECK(h.eval("present(eps)") == "false");
  CHECK(h.eval("eps.value") == "error: parameter 'eps' is None (guard with present())");
  CHECK(h.eval("eps.value if present(eps) else 1e-6") == "1e-06");
  CHECK(h.eval("w.shape") == "error: input 'w' is absent (guard with present())");
  CHECK(h.eval("bytes(x)") == "96");
  CHECK(h.eval("bytes(w)") == "0");
}

TEST_CASE("primitives") {
  auto h = harness();
  CHECK(h.eval("len(S)") == "3");
  CHECK(h.eval("len(E)") == "0");
  CHECK(h.eval("prod(S)") == "24");
  CHECK(h.eval("prod(E)") == "1");
  CHECK(h.eval("prod(())") == "1");
  CHECK(h.eval("sum(S)") == "9");
  CHECK(h.eval("sum([0.5, 1])") == "1.5");
  CHECK(h.eval("max(S)") == "4");
  CHECK(h.eval("max(M, N, 2)") == "8");
  CHECK(h.eval("min(S)") == "2");
  CHECK(h.eval("min(M, 2.5)") == "2.5");
  CHECK(h.eval("max(E)") == "error: max() of an empty tuple");
  CHECK(h.eval("all([1, True])") == "true");
  CHECK(h.eval("all([1, 0])") == "false");
  CHECK(h.eval("all(())") == "true");
  CHECK(h.eval("ceil_div(M, 3)") == "3");
  CHECK(h.eval("ceil_div(9, 3)") == "3");
  CHECK(h.eval("ceil_div(0, 3)") == "0");
  CHECK(h.eval("ceil_div(M, 0)") == "error: ceil_div(8, 0): the divisor must be positive");
  CHECK(h.eval("broadcast([3, 1], [4])") == "[3, 4]");
  CHECK(h.eval("broadcast(S, [1, 4])") == "[2, 3, 4]");
  CHECK(h.eval("broadcast(E, S)") == "[2, 3, 4]");
  CHECK(h.eval("broadcast([3, 4], [5])") == "error: shapes [3, 4] and [5] do not broadcast");
  CHECK(h.eval("reduced(S, None, False)") == "[]");
  CHECK(h.eval("reduced(S, None, True)") == "[1, 1, 1]");
  CHECK(h.eval("reduced(S, 1, False)") == "[2, 4]");
  CHECK(h.eval("reduced(S, -1, True)") == "[2, 3, 1]");
  CHECK(h.eval("reduced(S, dim, False)") == "[2]");
  CHECK(h.eval("reduced(S, [], False)") == "[]");  // an empty list reduces every axis, as torch
  CHECK(h.eval("reduced(E, 0, True)") == "[]");
  CHECK(h.eval("reduced(E, -1, False)") == "[]");
  CHECK(h.eval("reduced(S, 3, False)") == "error: axis 3 is out of range for 3 dimensions (axis in [-3, 3))");
  CHECK(h.eval("reduced(S, [0, -3], False)") == "error: axis -3 appears twice in [0, -3]");
  CHECK(h.eval("normalize_axis(-1, 3)") == "2");
  CHECK(h.eval("normalize_axis(2, 3)") == "2");
  CHECK(h.eval("normalize_axis(-1, 0)") == "0");
  CHECK(h.eval("normalize_axis(0, 0)") == "0");
  CHECK(h.eval("normalize_axis(3, 3)") == "error: axis 3 is out of range for 3 dimensions (axis in [-3, 3))");
  CHECK(h.eval("normalize_axis(1, 0)") == "error: axis 1 is out of range for a rank-0 tensor (axis -1 or 0)");
  CHECK(h.eval("valid_axes(dim, 3)") == "true");
  CHECK(h.eval("valid_axes(dim, 1)") == "false");
  CHECK(h.eval("valid_axes([0, -3], 3)") == "false");
  CHECK(h.eval("valid_axes(None, 0)") == "true");
  CHECK(h.eval("valid_axes(-1, 0)") == "true");
  CHECK(h.eval("valid_axes(2, 0)") == "false");
  CHECK(h.eval("promote_int_to_float(I)") == "float32");
  CHECK(h.eval("promote_int_to_float(T)") == "float16");
  CHECK(h.eval("promote_int_to_float(T) == T or alpha % 1 == 0") == "true");
}

TEST_CASE("load-time errors: names, primitives, arity, types") {
  auto h = harness();
  CHECK(h.problems("M * Q") == "unknown name 'Q'");
  CHECK(h.problems("foo(M)") == "syntax: unknown primitive 'foo'");
  CHECK(h.problems("S.foo") == "syntax: unknown attribute '.foo' (known: .value, .ndim, .shape)");
  CHECK(h.problems("len(S, S)") == "len() takes 1 arguments, got 2");
  CHECK(h.problems("ceil_div(M)") == "ceil_div() takes 2 arguments, got 1");
  CHECK(h.problems("len(alpha)") == "len() argument 1 must be a tuple, got float");
  CHECK(h.problems("prod(M)") == "prod() argument 1 must be a tuple, got int");
  CHECK(h.problems("promote_int_to_float(M)") == "promote_int_to_float() argument 1 must be a dtype, got int");
  CHECK(h.problems("S + 1") == "operator '+' cannot combine tuple of ints and int");
  CHECK(h.problems("'a' < 1") == "cannot compare str < int");
  CHECK(h.problems("M in 3") == "cannot compare int in int");
  CHECK(h.problems("x + 1") == "a tensor can only be used as x.shape, x.ndim, present(x) or bytes(x)");
  CHECK(h.problems("x") == "a tensor can only be used as x.shape, x.ndim, present(x) or bytes(x)");
  CHECK(h.problems("present(k)") == "present() takes an input tensor or a parameter of type 'X | None'");
  CHECK(h.problems("k.value") == "'.value' applies to a parameter of type 'X | None'");
  CHECK(h.problems("M.shape") == "'.shape' applies to a tensor");
  CHECK(h.problems("bytes(x)") == "bytes() is only allowed in roofline formulas");
  CHECK(h.problems("bytes(x)", {true}).empty());
  CHECK(h.problems("S[1, 2]") == "a subscript takes one index (a type family application must be a whole shape)");
  CHECK(h.problems("M ** 2") == "syntax: operator '**' is not part of the language");
  CHECK(h.problems("M +") == "syntax: unexpected the end of the expression");
  CHECK(h.problems("[M, N") == "syntax: expected ']' to close the list, found the end of the expression");
  CHECK(h.problems("'open") == "syntax: unterminated string");
  CHECK(h.problems("M N") == "syntax: unexpected 'N'");
  CHECK(h.problems("*S") == "syntax: '*' splices only inside [...] or (...)");
  CHECK(h.problems("M + not N") == "syntax: 'not' needs parentheses here");
  CHECK(h.problems("3abc") == "syntax: malformed number '3a'");
  CHECK(h.problems("reduced(S, dim, keepdim=False)") == "syntax: unexpected character '='");
  CHECK(h.problems("float16 == T").empty());  // dtype names are constants
}

TEST_CASE("load-time errors: splices, subscripts, slices, calls, numbers") {
  auto h = harness();
  CHECK(h.problems("[*M]") == "'*' needs a tuple, got int");
  CHECK(h.problems("(*S)") == "syntax: a splice needs a tuple: write (*x,)");
  CHECK(h.problems("len(*S)") == "syntax: primitives take no splices");
  CHECK(h.problems("S[]") == "syntax: empty subscript");
  CHECK(h.problems("M[0]") == "cannot subscript a int");
  CHECK(h.problems("S['a']") == "a subscript index must be an int");
  CHECK(h.problems("M[0:1]") == "cannot slice a int");
  CHECK(h.problems("S[0:'a']") == "slice bounds must be ints");
  CHECK(h.problems("-S") == "unary minus needs a number, got tuple of ints");
  CHECK(h.problems("S.") == "syntax: expected an attribute name after '.'");
  CHECK(h.problems("(1)(2)") == "syntax: only primitives can be called");
  CHECK(h.problems("S.shape(1)") == "syntax: only primitives can be called");
  CHECK(h.problems("99999999999999999999") == "syntax: integer out of range");
  CHECK(h.problems("max(approximate, 1)") == "max() argument 1 must be a number, got str");
  // The evaluator takes at most 8 arguments a call; a longer max() used to load and then
  // fail at every evaluation.
  CHECK(h.problems("max(M, N, k, 1, 2, 3, 4, 5, 6)") == "max() takes 1 to 8 arguments, got 9");
  CHECK(h.problems("max(M, N, k, 1, 2, 3, 4, 5)").empty());
}

TEST_CASE("evaluation errors: non-finite floats, ordering None") {
  auto h = harness();
  CHECK(h.eval("1e308 + 1e308") == "error: the result is not a finite number");
  // sum() and prod() of floats as the operators: they returned inf before.
  CHECK(h.eval("sum([1e308, 1e308])") == "error: the result is not a finite number");
  CHECK(h.eval("prod([1e200, 1e200])") == "error: the result is not a finite number");
  CHECK(h.eval("sum([1e300, 2.5])") == "1e+300");
  CHECK(h.eval("eps < 1") == "error: cannot order none and int");
}


namespace {

// A random expression over the harness's names, up to `depth` levels deep: mostly
// ill-typed, some well-typed with edge values (zero, negative and huge ints, empty and
// out-of-range subscripts).
std::string random_expression(std::mt19937_64& gen, int depth) {
  auto pick = [&](size_t n) { return size_t(std::uniform_int_distribution<size_t>(0, n - 1)(gen)); };
  static const std::vector<std::string> atoms{
      "M", "N", "U", "k", "eps", "alpha", "keepdim", "approximate", "S", "E", "T", "I", "dim", "0", "1", "-1", "3",
      "2.5", "0.0", "True", "None", "'tanh'", "x.shape", "x.ndim", "w.shape", "eps.value", "float16",
      "9223372036854775807", "(-9223372036854775807 - 1)", "[]", "()", "[0]"};
  static const std::vector<std::string> binary{"+", "-", "*", "/", "//", "%", "==", "!=",
                                               "<", "<=", ">", ">=", "and", "or", "in", "not in"};
  static const std::vector<std::string> primitives{
      "len", "prod", "sum", "max", "min", "all", "ceil_div", "broadcast", "reduced", "normalize_axis", "valid_axes",
      "promote_int_to_float", "present"};
  if (depth == 0) return atoms[pick(atoms.size())];
  const auto sub = [&] { return random_expression(gen, depth - 1); };
  switch (pick(9)) {
    case 0: return "(" + sub() + " " + binary[pick(binary.size())] + " " + sub() + ")";
    case 1: return "-" + sub();
    case 2: return "(not " + sub() + ")";
    case 3: return sub() + "[" + sub() + "]";
    case 4: return sub() + "[" + sub() + ":" + sub() + "]";
    case 5: {
      std::string call = primitives[pick(primitives.size())] + "(" + sub();
      for (size_t n = pick(3); n > 0; --n) call += ", " + sub();
      return call + ")";
    }
    case 6: return "(" + sub() + " if " + sub() + " else " + sub() + ")";
    case 7: return "[" + sub() + ", *" + sub() + "]";
    default: return atoms[pick(atoms.size())];
  }
}

}  // namespace

TEST_CASE("random expressions: a syntax error, a compile problem, a value or an evaluation error, nothing else") {
  auto h = harness();
  std::mt19937_64 gen(20261204);
  int values = 0, eval_errors = 0;
  for (int i = 0; i < 20000; ++i) {
    const std::string text = random_expression(gen, 1 + i % 4);
    INFO(text);
    try {
      if (!h.problems(text).empty()) continue;
      const std::string out = h.eval(text);
      (out.rfind("error: ", 0) == 0 ? eval_errors : values) += 1;
    } catch (const std::exception& e) {
      FAIL_CHECK("threw " << std::string(e.what()));
    }
  }
  MESSAGE(values << " random expressions evaluated, " << eval_errors << " raised evaluation errors");
  CHECK(values > 1000);
  CHECK(eval_errors > 100);
}

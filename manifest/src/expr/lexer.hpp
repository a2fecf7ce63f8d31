#pragma once
// Tokens of the expression language.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tileops::manifest::detail {

enum class TokenKind : uint8_t {
  Int, Float, String, Name,
  // keywords
  And, Or, Not, In, If, Else, True, False, None,
  // punctuation and operators
  LParen, RParen, LBracket, RBracket, Comma, Colon, Dot, Star,
  Plus, Minus, Slash, SlashSlash, Percent,
  Eq, Ne, Lt, Le, Gt, Ge,
  End,
};

struct Token {
  TokenKind kind;
  uint32_t pos;           // byte offset of the token
  std::string_view text;  // as written (a String token: the contents, unescaped form below)
  int64_t int_value = 0;
  double float_value = 0;
  std::string string_value;
};

// A syntax error in an expression: where (byte offset) and what.
class SyntaxError : public std::runtime_error {
 public:
  SyntaxError(uint32_t pos, const std::string& what) : std::runtime_error(what), pos(pos) {}
  uint32_t pos;
};

std::vector<Token> tokenize(std::string_view text);
const char* token_text(TokenKind kind);

}  // namespace tileops::manifest::detail

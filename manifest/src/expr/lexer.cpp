#include "expr/lexer.hpp"

#include <cctype>
#include <charconv>
#include <cstdlib>
#include <utility>

namespace tileops::manifest::detail {
namespace {

bool is_name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)); }

TokenKind keyword_or_name(std::string_view word) {
  static constexpr std::pair<std::string_view, TokenKind> kKeywords[] = {
      {"and", TokenKind::And},   {"or", TokenKind::Or},       {"not", TokenKind::Not},
      {"in", TokenKind::In},     {"if", TokenKind::If},       {"else", TokenKind::Else},
      {"True", TokenKind::True}, {"true", TokenKind::True},   {"False", TokenKind::False},
      {"false", TokenKind::False}, {"None", TokenKind::None}, {"null", TokenKind::None},
  };
  for (const auto& [text, kind] : kKeywords)
    if (text == word) return kind;
  return TokenKind::Name;
}

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    while (true) {
      while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
      if (pos_ == text_.size()) break;
      out.push_back(next());
    }
    out.push_back(Token{TokenKind::End, uint32_t(pos_), {}, 0, 0, {}});
    return out;
  }

 private:
  Token make(TokenKind kind, size_t start) {
    return Token{kind, uint32_t(start), text_.substr(start, pos_ - start), 0, 0, {}};
  }

  Token next() {
    size_t start = pos_;
    char c = text_[pos_];
    if (is_name_start(c)) {
      while (pos_ < text_.size() && is_name_char(text_[pos_])) ++pos_;
      return make(keyword_or_name(text_.substr(start, pos_ - start)), start);
    }
    if (is_digit(c) || (c == '.' && pos_ + 1 < text_.size() && is_digit(text_[pos_ + 1])))
      return number(start);
    if (c == '\'' || c == '"') return string(start, c);
    return punctuation(start);
  }

  Token number(size_t start) {
    bool is_float = false;
    while (pos_ < text_.size() && is_digit(text_[pos_])) ++pos_;
    if (pos_ < text_.size() && text_[pos_] == '.') {
      is_float = true;
      ++pos_;
      while (pos_ < text_.size() && is_digit(text_[pos_])) ++pos_;
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      size_t save = pos_++;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      if (pos_ < text_.size() && is_digit(text_[pos_])) {
        is_float = true;
        while (pos_ < text_.size() && is_digit(text_[pos_])) ++pos_;
      } else {
        pos_ = save;
      }
    }
    if (pos_ < text_.size() && is_name_char(text_[pos_]))
      throw SyntaxError(uint32_t(start), "malformed number '" +
                                             std::string(text_.substr(start, pos_ - start + 1)) + "'");
    Token token = make(is_float ? TokenKind::Float : TokenKind::Int, start);
    if (is_float) {
      token.float_value = std::strtod(std::string(token.text).c_str(), nullptr);
    } else {
      auto [end, ec] = std::from_chars(token.text.data(), token.text.data() + token.text.size(),
                                       token.int_value);
      if (ec != std::errc()) throw SyntaxError(uint32_t(start), "integer out of range");
    }
    return token;
  }

  Token string(size_t start, char quote) {
    ++pos_;
    std::string value;
    while (pos_ < text_.size() && text_[pos_] != quote) {
      if (text_[pos_] == '\\' && pos_ + 1 < text_.size()) ++pos_;
      value += text_[pos_++];
    }
    if (pos_ == text_.size()) throw SyntaxError(uint32_t(start), "unterminated string");
    ++pos_;
    Token token = make(TokenKind::String, start);
    token.string_value = std::move(value);
    return token;
  }

  Token punctuation(size_t start) {
    auto two = text_.substr(pos_, 2);
    static constexpr std::pair<std::string_view, TokenKind> kTwo[] = {
        {"//", TokenKind::SlashSlash}, {"==", TokenKind::Eq}, {"!=", TokenKind::Ne},
        {"<=", TokenKind::Le},         {">=", TokenKind::Ge},
    };
    for (const auto& [text, kind] : kTwo) {
      if (two == text) {
        pos_ += 2;
        return make(kind, start);
      }
    }
    if (two == "**") throw SyntaxError(uint32_t(start), "operator '**' is not part of the language");
    static constexpr std::pair<char, TokenKind> kOne[] = {
        {'(', TokenKind::LParen}, {')', TokenKind::RParen},  {'[', TokenKind::LBracket},
        {']', TokenKind::RBracket}, {',', TokenKind::Comma}, {':', TokenKind::Colon},
        {'.', TokenKind::Dot},    {'*', TokenKind::Star},    {'+', TokenKind::Plus},
        {'-', TokenKind::Minus},  {'/', TokenKind::Slash},   {'%', TokenKind::Percent},
        {'<', TokenKind::Lt},     {'>', TokenKind::Gt},
    };
    for (const auto& [ch, kind] : kOne) {
      if (text_[pos_] == ch) {
        ++pos_;
        return make(kind, start);
      }
    }
    throw SyntaxError(uint32_t(start), std::string("unexpected character '") + text_[pos_] + "'");
  }

  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

std::vector<Token> tokenize(std::string_view text) { return Lexer(text).run(); }

const char* token_text(TokenKind kind) {
  switch (kind) {
    case TokenKind::Int: return "an integer";
    case TokenKind::Float: return "a float";
    case TokenKind::String: return "a string";
    case TokenKind::Name: return "a name";
    case TokenKind::And: return "'and'";
    case TokenKind::Or: return "'or'";
    case TokenKind::Not: return "'not'";
    case TokenKind::In: return "'in'";
    case TokenKind::If: return "'if'";
    case TokenKind::Else: return "'else'";
    case TokenKind::True: return "'True'";
    case TokenKind::False: return "'False'";
    case TokenKind::None: return "'None'";
    case TokenKind::LParen: return "'('";
    case TokenKind::RParen: return "')'";
    case TokenKind::LBracket: return "'['";
    case TokenKind::RBracket: return "']'";
    case TokenKind::Comma: return "','";
    case TokenKind::Colon: return "':'";
    case TokenKind::Dot: return "'.'";
    case TokenKind::Star: return "'*'";
    case TokenKind::Plus: return "'+'";
    case TokenKind::Minus: return "'-'";
    case TokenKind::Slash: return "'/'";
    case TokenKind::SlashSlash: return "'//'";
    case TokenKind::Percent: return "'%'";
    case TokenKind::Eq: return "'=='";
    case TokenKind::Ne: return "'!='";
    case TokenKind::Lt: return "'<'";
    case TokenKind::Le: return "'<='";
    case TokenKind::Gt: return "'>'";
    case TokenKind::Ge: return "'>='";
    case TokenKind::End: return "the end";
  }
  return "?";
}

}  // namespace tileops::manifest::detail

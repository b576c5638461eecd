// A small, strict JSON reader for the bench tests (RFC 8259 values; no extensions). It exists so that the tests
// check that `slabcast bench --json` writes JSON that any reader accepts, without a JSON library in the build.
#pragma once
#include <cctype>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace slabcast::test {

struct Json {
  enum class Kind { null, boolean, number, string, array, object };
  Kind kind = Kind::null;
  bool boolean = false;
  double number = 0;
  std::string text;
  std::vector<Json> items;                            // array
  std::vector<std::pair<std::string, Json>> members;  // object, in file order

  bool is_null() const { return kind == Kind::null; }
  bool has(const std::string& key) const {
    for (const auto& m : members) if (m.first == key) return true;
    return false;
  }
  const Json& operator[](const std::string& key) const {
    if (kind != Kind::object) throw std::runtime_error("not an object (looking up '" + key + "')");
    for (const auto& m : members) if (m.first == key) return m.second;
    throw std::runtime_error("no member '" + key + "'");
  }
  const Json& operator[](size_t i) const {
    if (kind != Kind::array || i >= items.size()) throw std::runtime_error("no array item " + std::to_string(i));
    return items[i];
  }
};

class JsonReader {
 public:
  explicit JsonReader(const std::string& text) : s_(text) {}
  Json document() {
    Json v = value();
    skip_space();
    if (i_ != s_.size()) fail("text after the value");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("JSON: " + what + " at offset " + std::to_string(i_));
  }
  void skip_space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
  }
  bool take(const char* word) {
    const std::string w(word);
    if (s_.compare(i_, w.size(), w) != 0) return false;
    i_ += w.size();
    return true;
  }
  Json value() {
    skip_space();
    if (i_ >= s_.size()) fail("unexpected end");
    Json v;
    const char c = s_[i_];
    if (c == '{') {
      v.kind = Json::Kind::object;
      ++i_;
      skip_space();
      if (i_ < s_.size() && s_[i_] == '}') return ++i_, v;
      while (true) {
        skip_space();
        if (i_ >= s_.size() || s_[i_] != '"') fail("expected a member name");
        std::string key = string();
        skip_space();
        if (i_ >= s_.size() || s_[i_] != ':') fail("expected ':'");
        ++i_;
        v.members.emplace_back(std::move(key), value());
        skip_space();
        if (i_ < s_.size() && s_[i_] == ',') { ++i_; continue; }
        if (i_ < s_.size() && s_[i_] == '}') return ++i_, v;
        fail("expected ',' or '}'");
      }
    }
    if (c == '[') {
      v.kind = Json::Kind::array;
      ++i_;
      skip_space();
      if (i_ < s_.size() && s_[i_] == ']') return ++i_, v;
      while (true) {
        v.items.push_back(value());
        skip_space();
        if (i_ < s_.size() && s_[i_] == ',') { ++i_; continue; }
        if (i_ < s_.size() && s_[i_] == ']') return ++i_, v;
        fail("expected ',' or ']'");
      }
    }
    if (c == '"') {
      v.kind = Json::Kind::string;
      v.text = string();
      return v;
    }
    if (take("null")) return v;
    if (take("true")) { v.kind = Json::Kind::boolean; v.boolean = true; return v; }
    if (take("false")) { v.kind = Json::Kind::boolean; return v; }
    // number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
    const size_t start = i_;
    if (s_[i_] == '-') ++i_;
    if (i_ < s_.size() && s_[i_] == '0') {
      ++i_;
    } else {
      if (i_ >= s_.size() || !std::isdigit(static_cast<unsigned char>(s_[i_]))) fail("not a value");
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
    }
    if (i_ < s_.size() && s_[i_] == '.') {
      ++i_;
      if (i_ >= s_.size() || !std::isdigit(static_cast<unsigned char>(s_[i_]))) fail("digits expected after '.'");
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
    }
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      ++i_;
      if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
      if (i_ >= s_.size() || !std::isdigit(static_cast<unsigned char>(s_[i_]))) fail("digits expected in exponent");
      while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) ++i_;
    }
    v.kind = Json::Kind::number;
    v.number = std::strtod(s_.substr(start, i_ - start).c_str(), nullptr);
    return v;
  }
  std::string string() {
    ++i_;  // the opening quote
    std::string out;
    while (true) {
      if (i_ >= s_.size()) fail("unterminated string");
      const char c = s_[i_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in a string");
      if (c != '\\') { out += c; continue; }
      if (i_ >= s_.size()) fail("unterminated escape");
      const char e = s_[i_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          if (i_ + 4 > s_.size()) fail("short \\u escape");
          const long code = std::strtol(s_.substr(i_, 4).c_str(), nullptr, 16);
          i_ += 4;
          out += code < 0x80 ? static_cast<char>(code) : '?';  // the tests only need ASCII
          break;
        }
        default: fail("bad escape");
      }
    }
  }

  const std::string& s_;
  size_t i_ = 0;
};

inline Json parse_json(const std::string& text) { return JsonReader(text).document(); }

}  // namespace slabcast::test

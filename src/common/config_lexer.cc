#include "common/config_lexer.h"

#include <fmt/format.h>

#include <cctype>

#include "common/text_util.h"

namespace sluice {
namespace {

bool IsSpace(char c) { return std::isspace(static_cast<unsigned char>(c)); }

// Removes a trailing comment; "\#" becomes '#'. Quoted '#' is kept.
std::string StripComment(std::string_view line) {
  std::string out;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (c == '\\' && i + 1 < line.size() && line[i + 1] == '#') {
      out += '#';
      ++i;
      continue;
    }
    if (c == '"') quoted = !quoted;
    if (c == '#' && !quoted) break;
    out += c;
  }
  return out;
}

// Scans "Key = Value Key2="quoted value"" into pairs.
Status Tokenize(std::string_view s, std::string_view path, int line_no, ConfigLine* out) {
  size_t i = 0;
  auto skip_space = [&] {
    while (i < s.size() && IsSpace(s[i])) ++i;
  };
  while (true) {
    skip_space();
    if (i == s.size()) return Status::Ok();
    size_t k = i;
    while (i < s.size() && !IsSpace(s[i]) && s[i] != '=') ++i;
    std::string key(s.substr(k, i - k));
    skip_space();
    if (key.empty() || i == s.size() || s[i] != '=') {
      std::string what = key.empty() ? std::string(s.substr(k, 20)) : key;
      return ConfigError(path, line_no, fmt::format("expected Key=Value, got '{}'", what));
    }
    ++i;
    skip_space();
    std::string value;
    if (i < s.size() && s[i] == '"') {
      size_t close = s.find('"', i + 1);
      if (close == std::string_view::npos) {
        return ConfigError(path, line_no, fmt::format("unterminated quote in value of '{}'", key));
      }
      value = std::string(s.substr(i + 1, close - i - 1));
      i = close + 1;
    } else {
      size_t v = i;
      while (i < s.size() && !IsSpace(s[i])) ++i;
      value = std::string(s.substr(v, i - v));
    }
    out->pairs.push_back(ConfigPair{std::move(key), std::move(value)});
  }
}

}  // namespace

Status ConfigError(std::string_view path, int line, std::string_view message) {
  return InvalidArgument(fmt::format("{}:{}: {}", path.empty() ? "config" : path, line, message));
}

Expected<std::vector<ConfigLine>> LexConfig(std::string_view text, std::string_view path) {
  std::vector<ConfigLine> lines;
  std::string pending;
  int pending_start = 0;
  int line_no = 0;
  for (std::string_view raw : Split(text, '\n')) {
    ++line_no;
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    std::string line = StripComment(raw);
    while (!line.empty() && IsSpace(line.back())) line.pop_back();
    if (pending.empty()) pending_start = line_no;
    bool continues = !line.empty() && line.back() == '\\';
    if (continues) line.pop_back();
    pending += line;
    if (continues) {
      pending += ' ';
      continue;
    }
    if (!Trim(pending).empty()) {
      ConfigLine cl;
      cl.line_no = pending_start;
      RETURN_IF_ERROR(Tokenize(pending, path, pending_start, &cl));
      lines.push_back(std::move(cl));
    }
    pending.clear();
  }
  if (!Trim(pending).empty()) {
    ConfigLine cl;
    cl.line_no = pending_start;
    RETURN_IF_ERROR(Tokenize(pending, path, pending_start, &cl));
    lines.push_back(std::move(cl));
  }
  return lines;
}

}  // namespace sluice

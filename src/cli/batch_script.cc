#include "cli/batch_script.h"

#include <cctype>

namespace sluice {
namespace {

bool IsBlank(std::string_view s) {
  for (char c : s)
    if (!std::isspace(static_cast<unsigned char>(c))) return false;
  return true;
}

std::string_view LeftTrim(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  return s.substr(i);
}

}  // namespace

Status CheckBatchScript(std::string_view script) {
  if (script.empty()) return InvalidArgument("Batch script is empty!");
  if (IsBlank(script)) return InvalidArgument("Batch script contains only whitespace!");
  if (script.substr(0, 2) != "#!")
    return InvalidArgument(
        "This does not look like a batch script.  The first\n"
        "line must start with #! followed by the path to an interpreter.\n"
        "For instance: #!/bin/sh");
  if (script.find('\0') != std::string_view::npos)
    return InvalidArgument("The Slurm job script contains a NULL character!");
  if (script.find("\r\n") != std::string_view::npos)
    return InvalidArgument(
        "Batch script contains DOS line breaks (\\r\\n)\n"
        "instead of expected UNIX line breaks (\\n).");
  return Status::Ok();
}

Expected<std::vector<std::string>> TokenizeDirective(std::string_view body) {
  std::vector<std::string> tokens;
  std::string cur;
  bool in_token = false;
  char quote = 0;
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (quote) {
      if (c == quote) {
        quote = 0;
      } else {
        cur += c;
      }
      continue;
    }
    if (c == '\\' && i + 1 < body.size()) {
      cur += body[++i];
      in_token = true;
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_token = true;
    } else if (c == '#') {
      break;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      if (in_token) tokens.push_back(std::move(cur));
      cur.clear();
      in_token = false;
    } else {
      cur += c;
      in_token = true;
    }
  }
  if (quote) return InvalidArgument("unmatched quote in #SBATCH line");
  if (in_token) tokens.push_back(std::move(cur));
  return tokens;
}

Expected<std::vector<Directive>> ExtractDirectives(std::string_view script) {
  std::vector<Directive> out;
  size_t pos = 0;
  int line_no = 0;
  while (pos < script.size()) {
    size_t nl = script.find('\n', pos);
    std::string_view line =
        script.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? script.size() : nl + 1;
    ++line_no;
    std::string_view trimmed = LeftTrim(line);
    if (trimmed.empty() || trimmed == "\r") continue;
    if (trimmed[0] != '#') break;
    if (line.substr(0, 7) != "#SBATCH") continue;
    auto tokens = TokenizeDirective(line.substr(7));
    if (!tokens.ok())
      return InvalidArgument("Line " + std::to_string(line_no) + ": " + tokens.status().message());
    if (tokens->empty()) continue;
    out.push_back({line_no, std::move(*tokens)});
  }
  return out;
}

std::string WrapScript(std::string_view command) {
  return "#!/bin/sh\n# This script was created by sbatch --wrap.\n\n" + std::string(command) + "\n";
}

}  // namespace sluice

#include "cli/multi_prog.h"

#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <vector>

namespace sluice {
namespace {

// Limits: a rank list names at most this many ranks (MaxTasksPerNode-scale steps are
// far below it); anything larger is a mistake, not a step.
constexpr int kMaxRank = 1 << 20;

struct Line {
  std::vector<int> ranks;  // empty: "*"
  std::vector<std::string> words;
};

// Shell-like words: whitespace separates, quotes group, backslash escapes, an unquoted
// '#' at a word's start ends the line. nullopt: an unterminated quote.
std::optional<std::vector<std::string>> Words(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  bool in_word = false;
  char quote = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote) {
      if (c == quote)
        quote = 0;
      else if (c == '\\' && quote == '"' && i + 1 < line.size())
        cur += line[++i];
      else
        cur += c;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r') {
      if (in_word) out.push_back(cur);
      cur.clear();
      in_word = false;
      continue;
    }
    if (c == '#' && !in_word) break;
    in_word = true;
    if (c == '\'' || c == '"')
      quote = c;
    else if (c == '\\' && i + 1 < line.size())
      cur += line[++i];
    else
      cur += c;
  }
  if (quote) return std::nullopt;
  if (in_word) out.push_back(cur);
  return out;
}

// "0,3,5-7" -> ranks in the order written; nullopt when malformed.
std::optional<std::vector<int>> Ranks(const std::string& spec) {
  std::vector<int> out;
  std::stringstream in(spec);
  for (std::string part; std::getline(in, part, ',');) {
    size_t dash = part.find('-');
    std::string lo_s = part.substr(0, dash),
                hi_s = dash == std::string::npos ? lo_s : part.substr(dash + 1);
    if (lo_s.empty() || hi_s.empty() || lo_s.size() > 7 || hi_s.size() > 7 ||
        lo_s.find_first_not_of("0123456789") != std::string::npos ||
        hi_s.find_first_not_of("0123456789") != std::string::npos)
      return std::nullopt;
    const int lo = std::stoi(lo_s), hi = std::stoi(hi_s);
    if (hi < lo || hi >= kMaxRank || out.size() + (hi - lo) >= static_cast<size_t>(kMaxRank))
      return std::nullopt;
    for (int r = lo; r <= hi; ++r) out.push_back(r);
  }
  if (out.empty()) return std::nullopt;
  return out;
}

std::string ShellQuote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// %t -> rank, %o -> offset (a literal %% stays %).
std::string Expand(const std::string& word, int rank, int offset) {
  std::string out;
  for (size_t i = 0; i < word.size(); ++i) {
    if (word[i] == '%' && i + 1 < word.size()) {
      const char k = word[i + 1];
      if (k == 't') {
        out += std::to_string(rank);
        ++i;
        continue;
      }
      if (k == 'o') {
        out += std::to_string(offset);
        ++i;
        continue;
      }
      if (k == '%') {
        out += '%';
        ++i;
        continue;
      }
    }
    out += word[i];
  }
  return out;
}

std::string ExecLine(const Line& l, int rank, int offset) {
  std::string cmd = "exec";
  for (const std::string& w : l.words) cmd += " " + ShellQuote(Expand(w, rank, offset));
  return cmd;
}

}  // namespace

Expected<std::string> MultiProgScript(const std::string& text, const std::string& file_name,
                                      int ntasks) {
  const Status invalid = InvalidArgument("Configuration file " + file_name + " invalid");
  std::vector<Line> lines;
  std::string logical;
  std::stringstream in(text);
  for (std::string raw; std::getline(in, raw);) {
    if (!raw.empty() && raw.back() == '\\') {  // continued on the next line
      logical += raw.substr(0, raw.size() - 1);
      continue;
    }
    logical += raw;
    std::optional<std::vector<std::string>> words = Words(logical);
    logical.clear();
    if (!words) return invalid;
    if (words->empty()) continue;
    if (words->size() < 2) return invalid;  // ranks without a program
    Line l;
    if ((*words)[0] != "*") {
      std::optional<std::vector<int>> ranks = Ranks((*words)[0]);
      if (!ranks) return invalid;
      l.ranks = std::move(*ranks);
    }
    l.words.assign(words->begin() + 1, words->end());
    lines.push_back(std::move(l));
  }
  std::map<int, std::pair<size_t, int>> by_rank;  // rank -> (line, offset)
  std::optional<size_t> star;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].ranks.empty()) {
      if (!star) star = i;
      continue;
    }
    for (size_t k = 0; k < lines[i].ranks.size(); ++k) {
      const int r = lines[i].ranks[k];
      if (ntasks > 0 && r >= ntasks) return invalid;
      by_rank.emplace(r, std::make_pair(i, static_cast<int>(k)));  // the first line naming it wins
    }
  }
  if (ntasks > 0 && !star)
    for (int r = 0; r < ntasks; ++r)
      if (!by_rank.count(r)) return invalid;
  std::string script = "case \"$SLURM_PROCID\" in\n";
  for (const auto& [rank, where] : by_rank)
    script +=
        std::to_string(rank) + ") " + ExecLine(lines[where.first], rank, where.second) + " ;;\n";
  if (star) {
    // "*": the offset counts the ranks no other line names, so it is known only with ntasks.
    const Line& l = lines[*star];
    int offset = 0;
    for (int r = 0; r < ntasks; ++r) {
      if (by_rank.count(r)) continue;
      script += std::to_string(r) + ") " + ExecLine(l, r, offset++) + " ;;\n";
    }
    if (ntasks <= 0) {
      std::string cmd = "exec";
      for (const std::string& w : l.words) {
        std::string q = ShellQuote(w);
        // %t is the rank; %o is unknown without ntasks: the rank stands for it.
        for (const char* k : {"%t", "%o"})
          for (size_t p; (p = q.find(k)) != std::string::npos;)
            q.replace(p, 2, "'\"$SLURM_PROCID\"'");
        cmd += " " + q;
      }
      script += "*) " + cmd + " ;;\n";
    }
  }
  script +=
      "*) echo " +
      ShellQuote("srun: error: Configuration file " + file_name + " names no program for task ") +
      "\"$SLURM_PROCID\" >&2; exit 1 ;;\nesac\n";
  return script;
}

}  // namespace sluice

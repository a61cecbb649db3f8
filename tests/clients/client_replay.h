// ClientReplay: the integration fixture (a real controller and agents on loopback) plus
// what a client process has: the commands on PATH, argv calls and shell lines (several
// clients run their commands through a shell), and polling with a deadline.
#pragma once

#include <unistd.h>

#include <fstream>
#include <functional>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cluster_fixture.h"

namespace sluice::testing {

class ClientReplay : public ClusterTest {
 protected:
  // The cluster's environment plus PATH=<commands>:$PATH, USER and extra.
  RunOptions ClientEnv(const std::string& cwd = "", std::vector<std::string> extra = {}) {
    RunOptions o;
    for (const auto& e : cluster_->Env()) o.extra_env.push_back(e);
    const char* path = std::getenv("PATH");
    o.extra_env.push_back("PATH=" + BinDir() + ":" + (path ? path : "/usr/bin:/bin"));
    o.extra_env.push_back("USER=root");
    for (auto& e : extra) o.extra_env.push_back(std::move(e));
    o.cwd = cwd.empty() ? work_dir() : cwd;
    o.timeout_ms = 120'000;
    return o;
  }
  // argv as a client's subprocess call runs it: argv[0] found on PATH.
  RunResult Call(std::vector<std::string> argv, const std::string& cwd = "") {
    argv[0] = BinDir() + "/" + argv[0];
    return RunCommand(argv, ClientEnv(cwd));
  }
  // A shell line, as subprocess(..., shell=True) or a generated bash file runs it.
  RunResult Shell(const std::string& line, const std::string& cwd = "",
                  std::vector<std::string> extra_env = {}) {
    return RunCommand({"/bin/bash", "-c", line}, ClientEnv(cwd, std::move(extra_env)));
  }
  // Polls `done` every 200 ms until it holds or `timeout_ms` passed.
  static bool WaitFor(const std::function<bool()>& done, int timeout_ms = 60'000) {
    for (int waited = 0; waited < timeout_ms; waited += 200) {
      if (done()) return true;
      usleep(200'000);
    }
    return done();
  }
  static std::vector<std::string> Lines(const std::string& s) {
    std::vector<std::string> out;
    std::istringstream in(s);
    for (std::string l; std::getline(in, l);)
      if (!l.empty()) out.push_back(l);
    return out;
  }
  static std::vector<std::string> Split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::string cur;
    for (char c : s) {
      if (c == sep) {
        out.push_back(cur);
        cur.clear();
      } else {
        cur += c;
      }
    }
    out.push_back(cur);
    return out;
  }
  // Whitespace-separated words (Python's str.split()).
  static std::vector<std::string> Words(const std::string& s) {
    std::vector<std::string> out;
    std::istringstream in(s);
    for (std::string w; in >> w;) out.push_back(w);
    return out;
  }
  // First capture group of `re` in `s` (regex_search), "" when it does not match.
  static std::string Capture(const std::string& s, const std::string& re) {
    std::smatch m;
    return std::regex_search(s, m, std::regex(re)) ? m[1].str() : "";
  }
  // csv.DictReader(lines, delimiter=sep): one map per row, keyed by the header's names.
  static std::vector<std::map<std::string, std::string>> DictRows(const std::string& s, char sep) {
    std::vector<std::string> lines = Lines(s);
    std::vector<std::map<std::string, std::string>> rows;
    if (lines.empty()) return rows;
    const std::vector<std::string> names = Split(lines[0], sep);
    for (size_t i = 1; i < lines.size(); ++i) {
      std::vector<std::string> cells = Split(lines[i], sep);
      std::map<std::string, std::string> row;
      for (size_t k = 0; k < names.size() && k < cells.size(); ++k) row[names[k]] = cells[k];
      rows.push_back(std::move(row));
    }
    return rows;
  }
  std::string Partition() {
    std::string p = Capture(Call({"sinfo", "-h", "-o", "%P"}).out, R"((\S+)\*)");
    return p.empty() ? "gpu" : p;
  }
};

}  // namespace sluice::testing

// EnvList: an ordered "KEY=VALUE" list where Set() replaces an existing key in place
// (the order of first appearance is kept). Used to build job and task environments.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

namespace sluice {

class EnvList {
 public:
  // Adds "KEY=VALUE"; malformed entries (no '=', empty key) are dropped.
  void Add(const std::string& entry) {
    size_t eq = entry.find('=');
    if (eq == std::string::npos || eq == 0) return;
    Set(entry.substr(0, eq), entry.substr(eq + 1));
  }
  void Set(const std::string& key, const std::string& value) {
    auto it = index_.find(key);
    if (it != index_.end()) {
      entries_[it->second] = key + "=" + value;
      return;
    }
    index_[key] = entries_.size();
    entries_.push_back(key + "=" + value);
  }
  // Sets only when the key is absent (never overrides what the user exported).
  void SetDefault(const std::string& key, const std::string& value) {
    if (!Has(key)) Set(key, value);
  }
  bool Has(const std::string& key) const { return index_.count(key) > 0; }
  std::string Get(const std::string& key) const {
    auto it = index_.find(key);
    if (it == index_.end()) return "";
    return entries_[it->second].substr(key.size() + 1);
  }
  std::vector<std::string> Take() { return std::move(entries_); }

 private:
  std::vector<std::string> entries_;
  std::unordered_map<std::string, size_t> index_;
};

}  // namespace sluice

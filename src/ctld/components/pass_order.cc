#include "ctld/components/pass_order.h"

#include <algorithm>
#include <unordered_map>

namespace sluice::ctld {

void PassOrder::Record(const std::vector<Job>& order) {
  order_.clear();
  places_.clear();
  first_.clear();
  order_.reserve(order.size());
  places_.reserve(order.size());
  std::unordered_map<std::string, int32_t> index;  // partition name -> first_
  std::vector<int32_t> seen;                       // per partition: jobs so far
  for (const Job& j : order) {
    auto [it, added] = index.try_emplace(*j.partition, static_cast<int32_t>(first_.size()));
    if (added) {
      first_.emplace_back();
      seen.push_back(0);
    }
    const int32_t p = it->second;
    order_.push_back({j.id, j.priority, j.uid, nullptr});
    places_.push_back({j.id, seen[p]++, p});
    if (first_[p].size() < 3) first_[p].push_back(order_.back());
  }
  std::sort(places_.begin(), places_.end(),
            [](const Place& a, const Place& b) { return a.id < b.id; });
}

const PassOrder::Place* PassOrder::Find(int64_t id) const {
  auto it = std::lower_bound(places_.begin(), places_.end(), id,
                             [](const Place& p, int64_t v) { return p.id < v; });
  return it == places_.end() || it->id != id ? nullptr : &*it;
}

std::optional<PassOrder::Ahead> PassOrder::Before(int64_t id) const {
  const Place* it = Find(id);
  if (!it) return std::nullopt;
  Ahead a;
  a.count = it->rank;
  const std::vector<Job>& first = first_[it->partition];
  a.first.assign(first.begin(), first.begin() + std::min<size_t>(first.size(), it->rank));
  return a;
}

}  // namespace sluice::ctld

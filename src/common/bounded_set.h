// BoundedSet: a set that remembers at most `max` elements; inserting past that forgets
// the oldest. For "this was already done / given up" memories that must not grow forever.
#pragma once

#include <cstddef>
#include <deque>
#include <set>

namespace sluice {

template <typename T>
class BoundedSet {
 public:
  explicit BoundedSet(size_t max) : max_(max) {}
  // True if `v` was not there yet.
  bool Insert(const T& v) {
    if (!set_.insert(v).second) return false;
    order_.push_back(v);
    if (order_.size() > max_) {
      set_.erase(order_.front());
      order_.pop_front();
    }
    return true;
  }
  bool Contains(const T& v) const { return set_.count(v) > 0; }

 private:
  size_t max_;
  std::set<T> set_;
  std::deque<T> order_;
};

}  // namespace sluice

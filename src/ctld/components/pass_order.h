// PassOrder: the order of the last scheduling pass, kept so that what is asked between
// passes needs no walk over the pending queue (a walk over 100,000 job records costs
// ~20 ms on the owner thread): the jobs it considered in its order (the dashboard's
// queue), and for each how many jobs it considered before it in the same partition, and
// the first three of them (`sluice why`, scontrol show job's Explanation=). Jobs the pass
// skipped (held, waiting for a dependency or --begin, ...) are ahead of nobody and have
// no place. Owner thread only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sluice::ctld {

class PassOrder {
 public:
  struct Job {
    int64_t id = 0;
    int64_t priority = 0;
    uint32_t uid = 0;
    const std::string* partition = nullptr;  // read during Record only, then unset
  };
  struct Ahead {
    int64_t count = 0;
    std::vector<Job> first;  // at most three, in pass order
  };

  // `order`: the jobs the pass considered, in its order.
  void Record(const std::vector<Job>& order);
  // The jobs before `id` in its partition; nullopt when the last pass did not consider it.
  std::optional<Ahead> Before(int64_t id) const;
  bool Considered(int64_t id) const { return Find(id) != nullptr; }
  // Every job the last pass considered, in its order (partition unset).
  const std::vector<Job>& order() const { return order_; }

 private:
  struct Place {
    int64_t id;
    int32_t rank;       // jobs before it in its partition
    int32_t partition;  // index into first_
  };
  const Place* Find(int64_t id) const;

  std::vector<Job> order_;
  std::vector<Place> places_;            // by job id
  std::vector<std::vector<Job>> first_;  // per partition, its first three
};

}  // namespace sluice::ctld

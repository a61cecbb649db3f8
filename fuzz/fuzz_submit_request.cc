// The controller's request handling below the RPC layer: a SubmitJob payload (bytes as
// they arrive off the wire, parsed as JobInfo's spec) normalised and turned into a
// scheduler request against a fixed configuration; and `scontrol ... reservation`
// argument lists. The first byte picks which.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/config.h"
#include "ctld/components/reservation_spec.h"
#include "ctld/components/validate.h"
#include "types.pb.h"

namespace {

const sluice::Config& FuzzConfig() {
  static const sluice::Config config = [] {
    auto c = sluice::ParseConfig(
        "ClusterName=fuzz\n"
        "NodeName=gpu[01-04] CPUs=16 RealMemory=64000 Gres=gpu:a100:8\n"
        "NodeName=cpu[01-02] CPUs=8 RealMemory=16000\n"
        "PartitionName=gpu Nodes=gpu[01-04] Default=YES MaxTime=1-00:00:00\n"
        "PartitionName=cpu Nodes=cpu[01-02] AllowAccounts=physics\n",
        "fuzz.conf");
    return *c;
  }();
  return config;
}

std::vector<std::string> Words(std::string_view s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    size_t j = s.find_first_of(" \n\t", i);
    if (j == std::string_view::npos) j = s.size();
    if (j > i) out.emplace_back(s.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t* body = data + 1;
  size_t n = size - 1;
  if (data[0] % 2 == 0) {
    sluice::JobInfo job;
    if (!job.mutable_spec()->ParseFromArray(body, static_cast<int>(n))) return 0;
    job.set_job_id(1);
    if (!sluice::ctld::NormalizeJob(FuzzConfig(), &job).ok()) return 0;
    (void)sluice::ctld::BuildRequest(FuzzConfig(), job);
  } else {
    std::string_view text(reinterpret_cast<const char*>(body), n);
    (void)sluice::ctld::ParseReservationArgs(Words(text), 1700000000);
  }
  return 0;
}

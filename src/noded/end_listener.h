// EndListener: receives stepd's job-end datagrams on <spool>/agent.sock and wakes the
// Agent so the end is reported at once. A lost datagram only delays the report to the
// next heartbeat (the spool scan finds the status file anyway).
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <thread>

#include "common/status.h"

namespace sluice {

class EndListener {
 public:
  EndListener() = default;
  ~EndListener();
  Status Start(const std::string& path, std::function<void()> on_end);
  void Stop();

 private:
  int fd_ = -1;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace sluice

// Device confinement (cgroup.conf ConstrainDevices=yes): the device files a job's (or a
// step's) processes must not open, the node's GPUs it was not given, are denied by
// major:minor; every other device stays as it was (/dev/null, /dev/nvidiactl,
// /dev/nvidia-uvm*, its own /dev/nvidia<minor>).
//   cgroup v2: a BPF_PROG_TYPE_CGROUP_DEVICE program attached to the cgroup with
//     BPF_F_ALLOW_MULTI, so a step's program adds to its job's: every program on the way
//     up must allow an open. It lives as long as the cgroup.
//   cgroup v1: the devices controller: `c M:m rwm` written to devices.deny of a devices
//     cgroup that the processes join beside their memory one (process_tracker.h).
#pragma once

#include <string>
#include <vector>

#include "common/status.h"

namespace sluice {

struct DeviceId {
  bool block = false;
  unsigned major = 0;
  unsigned minor = 0;
  bool operator==(const DeviceId&) const = default;
};

// The device numbers of device files (stat); a path that is not a device is an error.
Expected<std::vector<DeviceId>> DeviceIdsOf(const std::vector<std::string>& files);

// cgroup v2: attaches a program denying `denied` to the cgroup directory `dir`.
Status AttachDeviceProgram(const std::string& dir, const std::vector<DeviceId>& denied);

// cgroup v1: creates the devices cgroup `dir` (and its parents) and denies `denied` in it.
Status DenyInDevicesCgroup(const std::string& dir, const std::vector<DeviceId>& denied);

}  // namespace sluice

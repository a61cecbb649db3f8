// IsolatedNet: the network of `sluice up --isolated` (root only), so that a local
// cluster behaves like separate hosts. Each node gets
//   - its own network namespace `sluice<K>-<node>`: a veth pair whose host end
//     (`sl<K>v<i>`) is on the bridge `slbr<K>`, address 10.213.K.<i+2>/24 (the bridge,
//     where the controller listens and the host's commands connect from, is 10.213.K.1);
//   - its own UTS namespace (hostname = node name) and mount namespace, in which
//     <state>/net/hosts is bind-mounted on /etc/hosts: every node name resolves there,
//     in IPv4 and in the v4-mapped IPv6 form (torch's c10d store asks for IPv6 first).
//     The host's /etc/hosts is never touched.
// K is the first free bridge number, so clusters side by side (tests) do not collide.
// What was made is recorded in <state>/net/net.conf; RemoveIsolatedNet() undoes it.
// The agent enters its node with `sluice enter-node` (EnterNodeAndExec), and everything
// it starts (stepds, tasks) lives there too.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"

namespace sluice {

class IsolatedNet {
 public:
  static constexpr int kMaxNodes = 250;
  // Makes the bridge and one namespace per node, and writes net.conf and hosts.
  static Expected<IsolatedNet> Create(const std::string& state_dir,
                                      const std::vector<std::string>& nodes,
                                      const std::string& host_name);
  // What Create() recorded in `state_dir` (NotFound: not an isolated cluster).
  static Expected<IsolatedNet> Load(const std::string& state_dir);

  std::string HostAddr() const;  // the bridge's address
  std::string NodeAddr(int i) const;
  std::string Netns(int i) const;
  std::string HostsFile() const { return dir_ + "/hosts"; }
  int size() const { return static_cast<int>(nodes_.size()); }
  const std::vector<std::string>& nodes() const { return nodes_; }

  // Takes node i's link down (a network cut: nothing passes either way) or up again.
  Status SetLink(int i, bool up) const;
  // Cuts member `from` from member `to` and back (a blackhole route in `from`'s namespace:
  // its packets to `to`, and so its answers, are dropped), or mends it.
  Status SetReachable(int from, int to, bool reachable) const;
  // Deletes every namespace and link Create() made, and net.conf.
  Status Remove() const;

 private:
  std::string Veth(int i) const;
  std::string Bridge() const;
  Status WriteFiles(const std::string& host_name) const;

  std::string dir_;  // <state>/net
  int index_ = 0;    // K
  std::vector<std::string> nodes_;
};

// Runs in `sluice enter-node`: joins network namespace `netns`, takes a UTS and mount
// namespace of its own, bind-mounts `hosts_file` on /etc/hosts, sets the hostname to
// `hostname`, then execs argv. Returns only on failure.
Status EnterNodeAndExec(const std::string& netns, const std::string& hostname,
                        const std::string& hosts_file, const std::vector<std::string>& argv);

}  // namespace sluice

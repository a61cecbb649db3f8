#include "local/isolated_net.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "local/process.h"

namespace fs = std::filesystem;

namespace sluice {
namespace {

constexpr const char* kIp = "/sbin/ip";
constexpr int kMaxBridges = 254;

Status Ip(const std::vector<std::string>& args) {
  std::vector<std::string> argv{kIp};
  argv.insert(argv.end(), args.begin(), args.end());
  RunOptions o;
  o.timeout_ms = 10'000;
  RunResult r = RunCommand(argv, o);
  if (r.exit_code == 0) return Status::Ok();
  std::string cmd;
  for (const auto& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
  return Internal(fmt::format("`{}` failed: {}", cmd,
                              r.err.empty() ? "exit " + std::to_string(r.exit_code) : r.err));
}

std::string ConfPath(const std::string& dir) { return dir + "/net.conf"; }

}  // namespace

std::string IsolatedNet::Bridge() const { return fmt::format("slbr{}", index_); }
std::string IsolatedNet::Veth(int i) const { return fmt::format("sl{}v{}", index_, i); }
std::string IsolatedNet::HostAddr() const { return fmt::format("10.213.{}.1", index_); }
std::string IsolatedNet::NodeAddr(int i) const {
  return fmt::format("10.213.{}.{}", index_, i + 2);
}
std::string IsolatedNet::Netns(int i) const {
  return fmt::format("sluice{}-{}", index_, nodes_[i]);
}

Expected<IsolatedNet> IsolatedNet::Create(const std::string& state_dir,
                                          const std::vector<std::string>& nodes,
                                          const std::string& host_name) {
  if (::geteuid() != 0) return PermissionDenied("--isolated needs root (network namespaces)");
  if (nodes.empty() || nodes.size() > kMaxNodes) {
    return InvalidArgument(fmt::format("--isolated supports 1 to {} nodes", kMaxNodes));
  }
  IsolatedNet net;
  net.dir_ = state_dir + "/net";
  net.nodes_ = nodes;
  std::error_code ec;
  fs::create_directories(net.dir_, ec);
  if (ec) return Internal("cannot create " + net.dir_ + ": " + ec.message());
  // The first bridge number nobody holds: creating the bridge is the atomic claim.
  Status claimed = Unavailable("no free bridge slbr1..slbr254");
  for (net.index_ = 1; net.index_ <= kMaxBridges; ++net.index_) {
    if (fs::exists("/sys/class/net/" + net.Bridge())) continue;
    claimed = Ip({"link", "add", net.Bridge(), "type", "bridge"});
    if (claimed.ok() || claimed.message().find("exists") == std::string::npos) break;
  }
  if (!claimed.ok()) return claimed;
  // Recorded first, so that Remove() finds whatever part of it was made.
  RETURN_IF_ERROR(net.WriteFiles(host_name));
  auto setup = [&]() -> Status {
    RETURN_IF_ERROR(Ip({"addr", "add", net.HostAddr() + "/24", "dev", net.Bridge()}));
    RETURN_IF_ERROR(Ip({"link", "set", net.Bridge(), "up"}));
    for (int i = 0; i < net.size(); ++i) {
      const std::string ns = net.Netns(i);
      RETURN_IF_ERROR(Ip({"netns", "add", ns}));
      RETURN_IF_ERROR(
          Ip({"link", "add", net.Veth(i), "type", "veth", "peer", "name", "eth0", "netns", ns}));
      RETURN_IF_ERROR(Ip({"link", "set", net.Veth(i), "master", net.Bridge(), "up"}));
      RETURN_IF_ERROR(Ip({"-n", ns, "addr", "add", net.NodeAddr(i) + "/24", "dev", "eth0"}));
      RETURN_IF_ERROR(Ip({"-n", ns, "link", "set", "eth0", "up"}));
      RETURN_IF_ERROR(Ip({"-n", ns, "link", "set", "lo", "up"}));
    }
    return Status::Ok();
  };
  if (Status st = setup(); !st.ok()) {
    net.Remove();
    return st;
  }
  return net;
}

Status IsolatedNet::WriteFiles(const std::string& host_name) const {
  std::ostringstream conf, hosts;
  conf << "index " << index_ << "\n";
  hosts << "# Written by `sluice up --isolated`: every node of the cluster.\n"
        << "127.0.0.1 localhost\n::1 localhost ip6-localhost ip6-loopback\n"
        << HostAddr() << " " << host_name << "\n::ffff:" << HostAddr() << " " << host_name << "\n";
  for (int i = 0; i < size(); ++i) {
    conf << "node " << nodes_[i] << "\n";
    hosts << NodeAddr(i) << " " << nodes_[i] << "\n::ffff:" << NodeAddr(i) << " " << nodes_[i]
          << "\n";
  }
  for (const auto& [path, text] :
       {std::pair{ConfPath(dir_), conf.str()}, std::pair{HostsFile(), hosts.str()}}) {
    std::ofstream f(path);
    f << text;
    f.close();
    if (!f) return Internal("cannot write " + path);
  }
  fs::permissions(HostsFile(), fs::perms(0644));
  return Status::Ok();
}

Expected<IsolatedNet> IsolatedNet::Load(const std::string& state_dir) {
  IsolatedNet net;
  net.dir_ = state_dir + "/net";
  std::ifstream in(ConfPath(net.dir_));
  if (!in) return NotFound("not an isolated cluster: no " + ConfPath(net.dir_));
  std::string key, value;
  while (in >> key >> value) {
    if (key == "index") net.index_ = std::atoi(value.c_str());
    if (key == "node") net.nodes_.push_back(value);
  }
  if (net.index_ < 1 || net.index_ > kMaxBridges) return Internal("bad " + ConfPath(net.dir_));
  return net;
}

Status IsolatedNet::SetLink(int i, bool up) const {
  if (i < 0 || i >= size())
    return InvalidArgument(fmt::format("no node {} in the isolated network", i));
  return Ip({"link", "set", Veth(i), up ? "up" : "down"});
}

Status IsolatedNet::SetReachable(int from, int to, bool reachable) const {
  if (from < 0 || from >= size() || to < 0 || to >= size())
    return InvalidArgument(fmt::format("no members {} and {} in the isolated network", from, to));
  return Ip(
      {"-n", Netns(from), "route", reachable ? "del" : "add", "blackhole", NodeAddr(to) + "/32"});
}

Status IsolatedNet::Remove() const {
  Status result = Status::Ok();
  for (int i = 0; i < size(); ++i) {
    // A namespace that is gone already is fine; its veth pair goes with it.
    if (fs::exists("/run/netns/" + Netns(i))) {
      if (Status st = Ip({"netns", "del", Netns(i)}); !st.ok()) result = st;
    }
    if (fs::exists("/sys/class/net/" + Veth(i))) Ip({"link", "del", Veth(i)});
  }
  if (fs::exists("/sys/class/net/" + Bridge())) {
    if (Status st = Ip({"link", "del", Bridge()}); !st.ok()) result = st;
  }
  if (result.ok()) fs::remove(ConfPath(dir_));
  return result;
}

Status EnterNodeAndExec(const std::string& netns, const std::string& hostname,
                        const std::string& hosts_file, const std::vector<std::string>& argv) {
  if (argv.empty()) return InvalidArgument("enter-node: no command");
  const std::string ns_path = "/run/netns/" + netns;
  int fd = ::open(ns_path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return NotFound(fmt::format("network namespace {}: {}", ns_path, std::strerror(errno)));
  int rc = ::setns(fd, CLONE_NEWNET);
  ::close(fd);
  auto fail = [](const std::string& what) { return Internal(what + ": " + std::strerror(errno)); };
  if (rc != 0) return fail("setns " + ns_path);
  if (::unshare(CLONE_NEWUTS | CLONE_NEWNS) != 0) return fail("unshare");
  // Mounts made here stay in this namespace.
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
    return fail("mount --make-rprivate /");
  if (::mount(hosts_file.c_str(), "/etc/hosts", nullptr, MS_BIND, nullptr) != 0) {
    return fail("bind mount " + hosts_file + " on /etc/hosts");
  }
  if (::sethostname(hostname.c_str(), hostname.size()) != 0) return fail("sethostname " + hostname);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  ::execv(args[0], args.data());
  return fail("exec " + argv[0]);
}

}  // namespace sluice

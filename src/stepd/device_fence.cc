#include "stepd/device_fence.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/bpf.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace sluice {
namespace {

bpf_insn Insn(uint8_t code, uint8_t dst, uint8_t src, int16_t off, int32_t imm) {
  bpf_insn i{};
  i.code = code;
  i.dst_reg = dst;
  i.src_reg = src;
  i.off = off;
  i.imm = imm;
  return i;
}

// The program, over struct bpf_cgroup_dev_ctx {u32 access_type (device type in the low
// 16 bits); u32 major; u32 minor;}:
//   r2 = type, r3 = major, r4 = minor
//   per denied device: if (r2 == type && r3 == major && r4 == minor) return 0
//   return 1
std::vector<bpf_insn> Program(const std::vector<DeviceId>& denied) {
  std::vector<bpf_insn> p;
  p.push_back(Insn(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_2, BPF_REG_1, 0, 0));
  p.push_back(Insn(BPF_ALU64 | BPF_AND | BPF_K, BPF_REG_2, 0, 0, 0xffff));
  p.push_back(Insn(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_3, BPF_REG_1, 4, 0));
  p.push_back(Insn(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_4, BPF_REG_1, 8, 0));
  for (const DeviceId& d : denied) {
    int type = d.block ? BPF_DEVCG_DEV_BLOCK : BPF_DEVCG_DEV_CHAR;
    p.push_back(Insn(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_2, 0, 4, type));
    p.push_back(Insn(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_3, 0, 3, static_cast<int32_t>(d.major)));
    p.push_back(Insn(BPF_JMP | BPF_JNE | BPF_K, BPF_REG_4, 0, 2, static_cast<int32_t>(d.minor)));
    p.push_back(Insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0));
    p.push_back(Insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
  }
  p.push_back(Insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 1));
  p.push_back(Insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
  return p;
}

long Bpf(int cmd, bpf_attr* attr) { return ::syscall(SYS_bpf, cmd, attr, sizeof *attr); }

}  // namespace

Expected<std::vector<DeviceId>> DeviceIdsOf(const std::vector<std::string>& files) {
  std::vector<DeviceId> out;
  for (const std::string& f : files) {
    struct stat st {};
    if (::stat(f.c_str(), &st) != 0) {
      return NotFound(fmt::format("device {}: {}", f, std::strerror(errno)));
    }
    if (!S_ISCHR(st.st_mode) && !S_ISBLK(st.st_mode)) {
      return InvalidArgument(fmt::format("{} is not a device file", f));
    }
    out.push_back({S_ISBLK(st.st_mode), major(st.st_rdev), minor(st.st_rdev)});
  }
  return out;
}

Status AttachDeviceProgram(const std::string& dir, const std::vector<DeviceId>& denied) {
  std::vector<bpf_insn> prog = Program(denied);
  static const char kLicense[] = "GPL";  // the kernel's term for "any helper"; none is called
  bpf_attr load{};
  load.prog_type = BPF_PROG_TYPE_CGROUP_DEVICE;
  load.insns = reinterpret_cast<uint64_t>(prog.data());
  load.insn_cnt = static_cast<uint32_t>(prog.size());
  load.license = reinterpret_cast<uint64_t>(kLicense);
  int prog_fd = static_cast<int>(Bpf(BPF_PROG_LOAD, &load));
  if (prog_fd < 0) {
    return Internal(fmt::format("cannot load the device program: {}", std::strerror(errno)));
  }
  int cg_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (cg_fd < 0) {
    int err = errno;
    ::close(prog_fd);
    return Internal(fmt::format("cannot open cgroup {}: {}", dir, std::strerror(err)));
  }
  bpf_attr attach{};
  attach.target_fd = static_cast<uint32_t>(cg_fd);
  attach.attach_bpf_fd = static_cast<uint32_t>(prog_fd);
  attach.attach_type = BPF_CGROUP_DEVICE;
  attach.attach_flags = BPF_F_ALLOW_MULTI;
  long rc = Bpf(BPF_PROG_ATTACH, &attach);
  int err = errno;
  ::close(cg_fd);
  ::close(prog_fd);  // the cgroup keeps the program
  if (rc != 0) {
    return Internal(
        fmt::format("cannot attach the device program to {}: {}", dir, std::strerror(err)));
  }
  return Status::Ok();
}

Status DenyInDevicesCgroup(const std::string& dir, const std::vector<DeviceId>& denied) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Internal(fmt::format("cannot create devices cgroup {}: {}", dir, ec.message()));
  for (const DeviceId& d : denied) {
    std::string rule = fmt::format("{} {}:{} rwm", d.block ? 'b' : 'c', d.major, d.minor);
    int fd = ::open((dir + "/devices.deny").c_str(), O_WRONLY | O_CLOEXEC);
    bool ok = fd >= 0 && ::write(fd, rule.data(), rule.size()) == static_cast<ssize_t>(rule.size());
    int err = errno;
    if (fd >= 0) ::close(fd);
    if (!ok) {
      return Internal(fmt::format("cannot deny {} in {}: {}", rule, dir, std::strerror(err)));
    }
  }
  return Status::Ok();
}

}  // namespace sluice

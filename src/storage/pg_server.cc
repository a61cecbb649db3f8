#include "storage/pg_server.h"

#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <pqxx/pqxx>
#include <thread>

namespace sluice::storage {
namespace {

constexpr char kBinDir[] = "/usr/lib/postgresql/15/bin";

struct RunAs {
  uid_t uid = 0;
  gid_t gid = 0;
  bool switch_user = false;
};

Expected<RunAs> ServerUser() {
  if (getuid() != 0) return RunAs{getuid(), getgid(), false};
  struct passwd* pw = getpwnam("postgres");
  if (!pw) return Unavailable("running as root and there is no `postgres` user to run the server");
  return RunAs{pw->pw_uid, pw->pw_gid, true};
}

// Forks `argv` in a process group of its own, output appended to `log`.
pid_t Spawn(const std::vector<std::string>& argv, const RunAs& as, const std::string& log) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd >= 0) {
    dup2(fd, 1);
    dup2(fd, 2);
  }
  int devnull = open("/dev/null", O_RDONLY);
  if (devnull >= 0) dup2(devnull, 0);
  setsid();
  if (as.switch_user && (setgid(as.gid) != 0 || setuid(as.uid) != 0)) _exit(126);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  execv(args[0], args.data());
  _exit(127);
}

std::string LogTail(const std::string& path) {
  std::ifstream in(path);
  std::string s((std::istreambuf_iterator<char>(in)), {});
  return s.size() > 600 ? s.substr(s.size() - 600) : s;
}

// A directory (and the log) the server's user owns.
Status MakeOwned(const std::string& path, const RunAs& as, bool dir) {
  if (dir) {
    if (mkdir(path.c_str(), 0700) != 0 && errno != EEXIST)
      return Unavailable("cannot create " + path + ": " + strerror(errno));
  } else if (int fd = open(path.c_str(), O_WRONLY | O_CREAT, 0644); fd >= 0) {
    close(fd);
  }
  if (as.switch_user && chown(path.c_str(), as.uid, as.gid) != 0)
    return Unavailable("cannot chown " + path + " to postgres: " + strerror(errno));
  return Status::Ok();
}

pid_t PostmasterPid(const std::string& data_dir) {
  std::ifstream in(data_dir + "/postmaster.pid");
  long pid = 0;
  in >> pid;
  return static_cast<pid_t>(pid);
}

bool Alive(pid_t pid) {
  if (pid <= 0) return false;
  waitpid(pid, nullptr, WNOHANG);  // reaps it when this process started it
  return kill(pid, 0) == 0;
}

}  // namespace

bool PgServer::Running() const { return Alive(PostmasterPid(dir_ + "/data")); }

Status PgServer::Start() const {
  const std::string bin = kBinDir;
  if (access((bin + "/initdb").c_str(), X_OK) != 0 ||
      access((bin + "/postgres").c_str(), X_OK) != 0) {
    return Unavailable("PostgreSQL server binaries not found in " + bin);
  }
  ASSIGN_OR_RETURN(RunAs as, ServerUser());
  const std::string log = dir_ + "/server.log";
  RETURN_IF_ERROR(MakeOwned(dir_, as, true));
  RETURN_IF_ERROR(MakeOwned(socket_dir(), as, true));
  RETURN_IF_ERROR(MakeOwned(log, as, false));
  const std::string data = dir_ + "/data";
  int ws = 0;
  if (access((data + "/PG_VERSION").c_str(), F_OK) != 0) {
    pid_t init =
        Spawn({bin + "/initdb", "-D", data, "-U", kUser, "-A", "trust", "--no-sync", "-E", "UTF8"},
              as, log);
    waitpid(init, &ws, 0);
    if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0)
      return Unavailable("initdb failed: " + LogTail(log));
  }
  if (!tcp_addr_.empty()) RETURN_IF_ERROR(TrustSubnet(data));
  pid_t pid = PostmasterPid(data);
  if (!Alive(pid)) {
    pid =
        Spawn({bin + "/postgres", "-D", data, "-p", std::to_string(kPort), "-k", socket_dir(), "-c",
               "listen_addresses=" + tcp_addr_, "-c", "fsync=off", "-c", "full_page_writes=off"},
              as, log);
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  std::string last;
  while (std::chrono::steady_clock::now() < deadline) {
    try {
      pqxx::connection c(conn_string());
      return Status::Ok();
    } catch (const std::exception& e) {
      last = e.what();
    }
    if (!Alive(pid)) return Unavailable("postgres exited at start: " + LogTail(log));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  Stop();
  return Unavailable("postgres did not accept connections: " + last);
}

void PgServer::Stop() const {
  const pid_t pid = PostmasterPid(dir_ + "/data");
  if (!Alive(pid)) return;
  kill(pid, SIGINT);  // fast shutdown
  for (int i = 0; i < 300 && Alive(pid); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  if (Alive(pid)) {
    kill(pid, SIGKILL);
    for (int i = 0; i < 100 && Alive(pid); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

std::string PgServer::conn_string() const {
  return "host=" + socket_dir() + " port=" + std::to_string(kPort) + " user=" + kUser +
         " dbname=" + kDatabase;
}

Status PgServer::TrustSubnet(const std::string& data) const {
  const std::string subnet = tcp_addr_.substr(0, tcp_addr_.rfind('.')) + ".0/24";
  const std::string line = "host all all " + subnet + " trust";
  const std::string hba = data + "/pg_hba.conf";
  std::ifstream in(hba);
  for (std::string l; std::getline(in, l);)
    if (l == line) return Status::Ok();
  std::ofstream out(hba, std::ios::app);
  out << line << "\n";
  out.close();
  if (!out) return Internal("cannot write " + hba);
  return Status::Ok();
}

std::vector<std::string> PgServer::StateStorageLines() const {
  return {"StateStorageType=state/pgsql",
          "StateStorageHost=" + (tcp_addr_.empty() ? socket_dir() : tcp_addr_),
          "StateStoragePort=" + std::to_string(kPort), std::string("StateStorageUser=") + kUser,
          std::string("StateStorageLoc=") + kDatabase};
}

}  // namespace sluice::storage

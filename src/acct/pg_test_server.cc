#include "acct/pg_test_server.h"

#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <pqxx/pqxx>
#include <thread>
#include <vector>

namespace sluice::acct {
namespace {

constexpr char kBinDir[] = "/usr/lib/postgresql/15/bin";

struct RunAs {
  uid_t uid;
  gid_t gid;
  bool switch_user;
};

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
  setpgid(0, 0);
  if (as.switch_user && (setgid(as.gid) != 0 || setuid(as.uid) != 0)) _exit(126);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  execv(args[0], args.data());
  _exit(127);
}

std::string ReadLog(const std::string& path) {
  std::ifstream in(path);
  std::string s((std::istreambuf_iterator<char>(in)), {});
  return s.size() > 600 ? s.substr(s.size() - 600) : s;
}

}  // namespace

Status PgTestServer::Start() {
  std::string bin = kBinDir;
  if (access((bin + "/initdb").c_str(), X_OK) != 0 ||
      access((bin + "/postgres").c_str(), X_OK) != 0) {
    return Unavailable("PostgreSQL server binaries not found in " + bin);
  }
  RunAs as{getuid(), getgid(), false};
  if (getuid() == 0) {
    struct passwd* pw = getpwnam("postgres");
    if (!pw)
      return Unavailable("running as root and there is no `postgres` user to run the server");
    as = {pw->pw_uid, pw->pw_gid, true};
  }
  char tmpl[] = "/tmp/sluice-pg-XXXXXX";
  if (!mkdtemp(tmpl)) return Unavailable("mkdtemp failed");
  dir_ = tmpl;
  sock_dir_ = dir_ + "/sock";
  mkdir(sock_dir_.c_str(), 0700);
  if (as.switch_user) {
    if (chown(dir_.c_str(), as.uid, as.gid) != 0 || chown(sock_dir_.c_str(), as.uid, as.gid) != 0) {
      return Unavailable("cannot chown " + dir_);
    }
  }
  std::string log = dir_ + "/server.log";
  if (as.switch_user) {
    int fd = open(log.c_str(), O_WRONLY | O_CREAT, 0644);
    if (fd >= 0) {
      fchown(fd, as.uid, as.gid);
      close(fd);
    }
  }
  pid_t init = Spawn({bin + "/initdb", "-D", dir_ + "/data", "-U", "sluice", "-A", "trust",
                      "--no-sync", "-E", "UTF8"},
                     as, log);
  int ws = 0;
  waitpid(init, &ws, 0);
  if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0) {
    return Unavailable("initdb failed: " + ReadLog(log));
  }
  port_ = 20000 + static_cast<int>(getpid() % 20000);
  pid_ =
      Spawn({bin + "/postgres", "-D", dir_ + "/data", "-p", std::to_string(port_), "-k", sock_dir_,
             "-c", "listen_addresses=", "-c", "fsync=off", "-c", "full_page_writes=off"},
            as, log);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  std::string last;
  while (std::chrono::steady_clock::now() < deadline) {
    try {
      pqxx::connection c(conn_string());
      return Status::Ok();
    } catch (const std::exception& e) {
      last = e.what();
    }
    if (waitpid(pid_, &ws, WNOHANG) == pid_) {
      pid_ = -1;
      return Unavailable("postgres exited at start: " + ReadLog(log));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  Stop();
  return Unavailable("postgres did not accept connections: " + last);
}

std::string PgTestServer::conn_string() const {
  return "host=" + sock_dir_ + " port=" + std::to_string(port_) + " user=sluice dbname=postgres";
}

void PgTestServer::Stop() {
  if (pid_ > 0) {
    kill(pid_, SIGINT);  // fast shutdown
    int ws = 0;
    for (int i = 0; i < 300; ++i) {
      if (waitpid(pid_, &ws, WNOHANG) == pid_) {
        pid_ = -1;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, &ws, 0);
      pid_ = -1;
    }
  }
  if (!dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
    dir_.clear();
  }
}

AcctConfig PgTestServer::Config() const {
  AcctConfig c;
  c.type = "accounting_storage/pgsql";
  c.host = sock_dir_;
  c.port = port_;
  c.user = "sluice";
  c.db = "postgres";
  return c;
}

std::vector<std::string> PgTestServer::StateStorageLines() const {
  AcctConfig c = Config();
  return {"StateStorageType=state/pgsql", "StateStorageHost=" + c.host,
          "StateStoragePort=" + std::to_string(c.port), "StateStorageUser=" + c.user,
          "StateStorageLoc=" + c.db};
}

Status PgTestServer::Reset() {
  try {
    pqxx::connection c(conn_string());
    pqxx::nontransaction tx(c);
    tx.exec("DROP TABLE IF EXISTS acct_jobs, acct_steps, acct_node_events");
    return Status::Ok();
  } catch (const std::exception& e) {
    return Unavailable(e.what());
  }
}

Status PgTestServer::ExecSql(const std::string& sql) {
  try {
    pqxx::connection c(conn_string());
    pqxx::nontransaction tx(c);
    tx.exec(sql);
    return Status::Ok();
  } catch (const std::exception& e) {
    return Unavailable(e.what());
  }
}

}  // namespace sluice::acct

#include "rpc/ident_server.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <thread>
#include <vector>

#include "rpc/credential.h"
#include "rpc/temp_dir.h"

namespace sluice {
namespace {

using testing::TempDir;

const std::string kKey(64, 'k');

TEST(IdentServerTest, ReturnsOwnUidGidOverRealSocket) {
  TempDir dir;
  ManualClock clock(1'700'000'000);
  std::string path = dir.File("ident.sock");
  IdentServer server(path, kKey, &clock, 30'000);
  ASSERT_TRUE(server.Start().ok());
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0666u);

  auto token = FetchCredentialToken(path);
  ASSERT_TRUE(token.ok()) << token.status().message();
  EXPECT_EQ(token->find('\n'), std::string::npos);
  auto cred = VerifyCredential(kKey, *token, clock.NowMs());
  ASSERT_TRUE(cred.ok()) << cred.status().message();
  EXPECT_EQ(cred->uid, getuid());
  EXPECT_EQ(cred->gid, getgid());
  EXPECT_EQ(cred->expires_ms, clock.NowMs() + 30'000);
  // The ttl is honoured.
  EXPECT_FALSE(VerifyCredential(kKey, *token, clock.NowMs() + 30'000).ok());
  server.Stop();
  EXPECT_NE(stat(path.c_str(), &st), 0) << "socket file removed on Stop";
}

// When the tests run as root, a child that drops to another uid/gid must get a token
// for that uid/gid: the server reads the peer's identity, not its own.
TEST(IdentServerTest, OtherUidGetsItsOwnCredential) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to switch uid";
  TempDir dir;
  ManualClock clock(1000);
  ASSERT_EQ(chmod(dir.path().c_str(), 0755), 0);  // the socket's directory must be searchable
  std::string path = dir.File("s");
  IdentServer server(path, kKey, &clock);
  ASSERT_TRUE(server.Start().ok());
  int pipefd[2];
  ASSERT_EQ(pipe(pipefd), 0);
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    close(pipefd[0]);
    if (setgid(65533) != 0 || setuid(65534) != 0) _exit(2);
    auto token = FetchCredentialToken(path);
    std::string out = token.ok() ? *token : "ERR " + token.status().message();
    ssize_t n = write(pipefd[1], out.data(), out.size());
    _exit(n == static_cast<ssize_t>(out.size()) ? 0 : 3);
  }
  close(pipefd[1]);
  std::string got;
  char buf[512];
  for (ssize_t n; (n = read(pipefd[0], buf, sizeof buf)) > 0;) got.append(buf, n);
  close(pipefd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  auto cred = VerifyCredential(kKey, got, clock.NowMs());
  ASSERT_TRUE(cred.ok()) << got;
  EXPECT_EQ(cred->uid, 65534u);
  EXPECT_EQ(cred->gid, 65533u);
}

TEST(IdentServerTest, ManySequentialAndConcurrentClients) {
  TempDir dir;
  ManualClock clock(1000);
  std::string path = dir.File("s");
  IdentServer server(path, kKey, &clock);
  ASSERT_TRUE(server.Start().ok());
  std::vector<std::thread> threads;
  std::vector<int> ok(8, 0);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 25; ++i) {
        auto token = FetchCredentialToken(path);
        ok[t] += token.ok() && VerifyCredential(kKey, *token, clock.NowMs()).ok();
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int n : ok) EXPECT_EQ(n, 25);
}

TEST(IdentServerTest, StopUnblocksAcceptPromptlyAndIsIdempotent) {
  TempDir dir;
  ManualClock clock(1);
  IdentServer server(dir.File("s"), kKey, &clock);
  ASSERT_TRUE(server.Start().ok());
  EXPECT_EQ(server.Start().code(), Code::kFailedPrecondition);
  auto start = RealClock::MonotonicMs();
  server.Stop();
  server.Stop();
  EXPECT_LT(RealClock::MonotonicMs() - start, 1000);
  // Restart on the same path works.
  ASSERT_TRUE(server.Start().ok());
  EXPECT_TRUE(FetchCredentialToken(dir.File("s")).ok());
}

TEST(IdentServerTest, ReplacesStaleSocketButNotOtherFiles) {
  TempDir dir;
  ManualClock clock(1);
  std::string path = dir.File("s");
  {
    // A stale socket file, as left by a crashed controller.
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
    ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    close(fd);
  }
  IdentServer server(path, kKey, &clock);
  ASSERT_TRUE(server.Start().ok());
  EXPECT_TRUE(FetchCredentialToken(path).ok());
  server.Stop();

  std::string regular = dir.File("regular");
  std::ofstream(regular) << "precious";
  IdentServer other(regular, kKey, &clock);
  Status st = other.Start();
  EXPECT_EQ(st.code(), Code::kFailedPrecondition);
  EXPECT_NE(st.message().find("not a socket"), std::string::npos);
  std::ifstream in(regular);
  std::string text;
  in >> text;
  EXPECT_EQ(text, "precious");
}

TEST(IdentServerTest, BadPathsAreErrors) {
  ManualClock clock(1);
  IdentServer server(std::string(200, 'x'), kKey, &clock);
  EXPECT_EQ(server.Start().code(), Code::kInvalidArgument);
  IdentServer empty("", kKey, &clock);
  EXPECT_FALSE(empty.Start().ok());
}

TEST(FetchCredentialTokenTest, MissingSocketIsClearError) {
  TempDir dir;
  std::string path = dir.File("none.sock");
  auto token = FetchCredentialToken(path);
  ASSERT_FALSE(token.ok());
  EXPECT_EQ(token.status().code(), Code::kUnavailable);
  EXPECT_EQ(token.status().message(), "Unable to contact the controller's identity socket " + path +
                                          ": No such file or directory");
}

TEST(FetchCredentialTokenTest, SilentServerTimesOut) {
  TempDir dir;
  std::string path = dir.File("silent.sock");
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(listen(fd, 4), 0);  // never accepts, never writes
  auto start = RealClock::MonotonicMs();
  auto token = FetchCredentialToken(path, 200);
  auto took = RealClock::MonotonicMs() - start;
  close(fd);
  ASSERT_FALSE(token.ok());
  EXPECT_NE(token.status().message().find("Connection timed out"), std::string::npos)
      << token.status().message();
  EXPECT_GE(took, 150);
  EXPECT_LT(took, 2000);
}

TEST(FetchCredentialTokenTest, ServerClosingWithoutReplyIsError) {
  TempDir dir;
  std::string path = dir.File("closer.sock");
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(listen(fd, 4), 0);
  std::thread closer([fd] {
    int c = accept(fd, nullptr, nullptr);
    if (c >= 0) close(c);
  });
  auto token = FetchCredentialToken(path);
  closer.join();
  close(fd);
  ASSERT_FALSE(token.ok());
  EXPECT_NE(token.status().message().find("connection closed without a credential"),
            std::string::npos);
}

}  // namespace
}  // namespace sluice

// sluicerestd: Sluice's slurmrestd (rest_api.h), a client of the controller.
//   sluicerestd [-f CONFIG] [[HOST]:PORT]
//     -f    configuration file (default $SLUICE_CONF or /etc/sluice/sluice.conf)
//     PORT  where to listen (default: the config's RestPort on SlurmctldHost's address)
// Runs in the foreground until SIGTERM/SIGINT; logs to stderr.
#include <signal.h>

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include "client/connect.h"
#include "common/config.h"
#include "restd/rest_server.h"
#include "rpc/grpc_limits.h"

int main(int argc, char** argv) {
  std::string config_path = sluice::DefaultConfigPath();
  std::string listen;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "-f") == 0 && i + 1 < argc) {
      config_path = argv[++i];
    } else if (argv[i][0] != '-' && listen.empty()) {
      listen = argv[i];
    } else {
      std::cerr << "Usage: sluicerestd [-f config] [[host]:port]\n";
      return 1;
    }
  }
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  signal(SIGPIPE, SIG_IGN);

  auto config = sluice::LoadConfigFile(config_path);
  if (!config.ok()) {
    std::cerr << "sluicerestd: error: " << config.status().message() << "\n";
    return 1;
  }
  std::string host = config->ctld_host;
  int port = config->rest_port;
  if (!listen.empty()) {
    const size_t colon = listen.rfind(':');
    if (colon != std::string::npos) {
      if (colon > 0) host = listen.substr(0, colon);
      listen = listen.substr(colon + 1);
    }
    char* end = nullptr;
    const long p = std::strtol(listen.c_str(), &end, 10);
    if (listen.empty() || *end != '\0' || p < 0 || p > 65535) {
      std::cerr << "sluicerestd: error: invalid port: " << listen << "\n";
      return 1;
    }
    port = static_cast<int>(p);
  } else if (port == 0) {
    std::cerr << "sluicerestd: error: no port to listen on (give [host]:port or RestPort=)\n";
    return 1;
  }
  sluice::RestServer server(config_path, sluice::ControllerTargets(*config),
                            sluice::FailoverWaitMs(*config));
  if (sluice::Status st = server.Start(host, port); !st.ok()) {
    std::cerr << "sluicerestd: error: " << st.message() << "\n";
    return 1;
  }
  std::cerr << "sluicerestd: listening on http://" << host << ":" << server.port() << "/\n";
  int sig = 0;
  sigwait(&set, &sig);
  server.Stop();
  return 0;
}

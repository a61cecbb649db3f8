// sluicectld: the Sluice controller daemon.
//   sluicectld [-f CONFIG] [-D] [-c] [-N NAME]
//     -f  configuration file (default $SLUICE_CONF or /etc/sluice/sluice.conf)
//     -N  which SlurmctldHost this controller is (default: the one named like this host,
//         else the first): its address, and its name in the leader lease (state/pgsql)
//     -D  run in the foreground (the default; logs go to stderr)
//     -c  clean start: ignore saved jobs (they are archived), keep the job id counter
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>

#include "common/config.h"
#include "ctld/runtime/daemon.h"

int main(int argc, char** argv) {
  sluice::ctld::DaemonOptions opts;
  opts.config_path = sluice::DefaultConfigPath();
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "-f") == 0 && i + 1 < argc) {
      opts.config_path = argv[++i];
    } else if (std::strcmp(argv[i], "-D") == 0) {
      // foreground is the only mode
    } else if (std::strcmp(argv[i], "-c") == 0) {
      opts.clean_start = true;
    } else if (std::strcmp(argv[i], "-N") == 0 && i + 1 < argc) {
      opts.host_name = argv[++i];
    } else {
      std::cerr << "Usage: sluicectld [-f config] [-D] [-c] [-N name]\n";
      return 1;
    }
  }
#ifdef SLUICE_FAULT_HOOKS
  // Test-only build (sluicectld-faults), with SLUICE_FAULT_DIR set: the file
  // <dir>/ctld-die-at.<point> arms a crash at that point (ControllerOptions::fault_hook:
  // commit, committed, pass), taken once; while <dir>/ctld-slow-commit exists, every
  // commit first stalls for the milliseconds it holds (a slow disk).
  if (const char* dir = std::getenv("SLUICE_FAULT_DIR")) {
    opts.fault_hook = [dir = std::string(dir)](const char* point) {
      if (std::strcmp(point, "commit") == 0) {
        std::ifstream slow(dir + "/ctld-slow-commit");
        int ms = 0;
        if (slow >> ms && ms > 0) ::usleep(static_cast<useconds_t>(ms) * 1000);
      }
      if (::unlink((dir + "/ctld-die-at." + point).c_str()) == 0) ::raise(SIGKILL);
    };
  }
#endif
  return sluice::ctld::RunDaemon(opts);
}

// sluicectld: the Sluice controller daemon.
//   sluicectld [-f CONFIG] [-D] [-c]
//     -f  configuration file (default $SLUICE_CONF or /etc/sluice/sluice.conf)
//     -D  run in the foreground (the default; logs go to stderr)
//     -c  clean start: ignore saved jobs (they are archived), keep the job id counter
#include <cstring>
#include <iostream>

#include "common/config.h"
#include "ctld/daemon.h"

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
    } else {
      std::cerr << "Usage: sluicectld [-f config] [-D] [-c]\n";
      return 1;
    }
  }
  return sluice::ctld::RunDaemon(opts);
}

#include "cli/process_env.h"
#include "cli/sshare.h"

int main(int argc, char** argv) { return sluice::RunInProcess(argc, argv, sluice::RunSshare); }

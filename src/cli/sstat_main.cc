#include "cli/process_env.h"
#include "cli/sstat.h"

int main(int argc, char** argv) { return sluice::RunInProcess(argc, argv, sluice::RunSstat); }

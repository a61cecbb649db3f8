#include "cli/process_env.h"

int main(int argc, char** argv) { return sluice::SallocMain(argc, argv); }

// sluice-sim: the simulator as a standalone executable (same as `sluice sim`).
#include "sim/sim_command.h"

int main(int argc, char** argv) { return sluice::sim::SimMain(argc, argv); }

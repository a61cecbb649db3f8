// The real process environment for the commands' main(): stdio, environ, cwd,
// hostname, uid, RealClock, getpwnam/getpwuid, and a lazy ConnectToController().
// RunInProcess flushes the output and ends the process with the command's exit code
// (no gRPC teardown).
//   int SbatchMain(int argc, char** argv) { return RunInProcess(argc, argv, RunSbatch); }
#pragma once

#include <string>
#include <vector>

#include "cli/cli_env.h"

namespace sluice {

// getpwuid (the uid as digits when it has no name) and getpwnam (digits are a uid).
std::string PasswdUserName(uint32_t uid);
Expected<uint32_t> PasswdUserId(const std::string& name);

using CommandFn = int (*)(const std::vector<std::string>& args, CliEnv& env);
[[noreturn]] int RunInProcess(int argc, char** argv, CommandFn fn);

int SbatchMain(int argc, char** argv);
int SqueueMain(int argc, char** argv);
int ScancelMain(int argc, char** argv);
int SinfoMain(int argc, char** argv);
int ScontrolMain(int argc, char** argv);
int SrunMain(int argc, char** argv);
int SallocMain(int argc, char** argv);

}  // namespace sluice

// srun --task-prolog / --task-epilog on the node, as Slurm runs them:
//   - the prolog runs in the task's process, after it became the job's user and entered
//     its working directory, just before the task's exec, with the task's environment;
//     each line it prints is an instruction: "export NAME=VALUE" sets NAME for the task,
//     "unset NAME" removes it, "print TEXT" writes TEXT to the task's stdout; other
//     lines are ignored; its stderr is the task's;
//   - the epilog starts when the task has exited, as the job's user, in its own process
//     group, with the task's environment and no output; the stepd reports the task's
//     exit once the epilog ended or after kTaskEpilogWaitMs, then kills whatever of its
//     process group is left (StepSupervisor).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "stepd/job_spawn.h"

namespace sluice {

inline constexpr int64_t kTaskEpilogWaitMs = 5'000;

// In the task's child: runs `path` and applies its instructions to `env` ("K=V" entries).
// A prolog that cannot run or fails leaves `env` as it was, with a line on stderr.
void RunTaskProlog(const std::string& path, std::vector<std::string>* env);
// Applies a prolog's output (tested without processes); "print" lines go to `printed`.
void ApplyTaskPrologOutput(const std::string& output, std::vector<std::string>* env,
                           std::string* printed);

// In the stepd: starts the epilog; its pid (also its process group), or an error.
Expected<pid_t> StartTaskEpilog(const std::string& path, const std::vector<std::string>& env,
                                const std::string& work_dir, const UserIds& user);

}  // namespace sluice

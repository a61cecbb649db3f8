// srun --multi-prog FILE (MPMD): each line of FILE is "<ranks> <program> [args...]" with
// ranks as a comma list of ids and ranges ("0,3", "1-2") or "*" for every rank no other
// line names; in the program and its arguments %t is the task's rank and %o its offset
// among the ranks of its line. '#' starts a comment, a trailing '\' continues the line,
// quotes and backslashes work as in a shell word.
//
// srun turns the file into one /bin/sh program that every task runs: it picks its line by
// $SLURM_PROCID and execs it, so the task is that program (its pid, signals, exit code).
//   MultiProgScript("0 hostname\n1-3 echo %t:%o\n", "f", 4)
//     -> "case \"$SLURM_PROCID\" in\n0) exec 'hostname' ;;\n1) exec 'echo' '1:0' ;; ..."
// `ntasks` > 0: every rank below it must be covered, and no line may name one beyond it
// (else "Configuration file <name> invalid"); 0 = not known yet (the controller sizes
// the step): an uncovered rank then fails when it starts.
#pragma once

#include <string>

#include "common/status.h"

namespace sluice {

Expected<std::string> MultiProgScript(const std::string& text, const std::string& file_name,
                                      int ntasks);

}  // namespace sluice

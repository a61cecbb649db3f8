// srun's -o/-e/-i handling.
//   StepOutputFiles: -o/-e patterns (%j %J %s %t %n %N %u %x %% ...; see
//   ExpandOutputPattern) expanded per task on srun's side; tasks whose expansions are
//   equal share one file (so "-o out.%j" is one file, "-o out.%t" one per task). The
//   files are created (truncated) by srun. Without -e, stderr goes where -o sends stdout.
//   For() returns nullptr for a stream that keeps going to srun's own stdout/stderr. As in
//   Slurm, -o/-e "all" is srun's own stream, "none" discards, and a task id N sends task
//   N's stream to srun's and discards the others'.
//   PlanStdin: -i none | all | <task id> | <file pattern>; default: task 0 only. A file
//   pattern is opened by each node's stepd for each task (expanded with its rank).
#pragma once

#include <cstdint>
#include <fstream>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "common/slurm_format.h"
#include "common/status.h"

namespace sluice {

class StepOutputFiles {
 public:
  // `append`: --open-mode=append (or SLURM_OPEN_MODE=a from the batch job): files are
  // appended to, as a requeued submitit job's logs are; otherwise truncated.
  StepOutputFiles(std::string out_pattern, std::string err_pattern, PatternVars vars,
                  std::vector<std::string> nodes, std::vector<int> task_nodes, bool append);
  bool active() const {
    return (!out_.empty() && out_ != "all") || (!err_.empty() && err_ != "all");
  }
  // Opens every file; the first one that cannot be created is the error.
  Status Check();
  std::ostream* For(uint32_t rank, bool is_err);
  std::string PathFor(uint32_t rank, bool is_err) const;  // "" = srun's own stream

 private:
  enum class Route { kSrun, kDiscard, kFile };
  Route RouteFor(uint32_t rank, bool is_err) const;
  std::string out_, err_;
  std::ostream discard_{nullptr};  // writes go nowhere
  PatternVars vars_;
  std::vector<std::string> nodes_;
  std::vector<int> task_nodes_;
  bool append_;
  std::map<std::string, std::unique_ptr<std::ofstream>> files_;
};

struct StdinPlan {
  std::vector<int> ranks;    // -1 = every task
  std::string file_pattern;  // -i <file>
};
Expected<StdinPlan> PlanStdin(const std::string& input);

}  // namespace sluice

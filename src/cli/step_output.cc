#include "cli/step_output.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>

#include "common/text_util.h"

namespace sluice {

StepOutputFiles::StepOutputFiles(std::string out_pattern, std::string err_pattern, PatternVars vars,
                                 std::vector<std::string> nodes, std::vector<int> task_nodes,
                                 bool append)
    : out_(std::move(out_pattern)),
      err_(std::move(err_pattern)),
      vars_(std::move(vars)),
      nodes_(std::move(nodes)),
      task_nodes_(std::move(task_nodes)),
      append_(append) {}

StepOutputFiles::Route StepOutputFiles::RouteFor(uint32_t rank, bool is_err) const {
  const std::string& pattern = is_err && !err_.empty() ? err_ : out_;
  if (pattern.empty() || pattern == "all") return Route::kSrun;
  if (pattern == "none") return Route::kDiscard;
  if (IsAllDigits(pattern) && pattern.size() < 10) {
    return std::stoul(pattern) == rank ? Route::kSrun : Route::kDiscard;  // -o <task id>
  }
  return Route::kFile;
}

std::string StepOutputFiles::PathFor(uint32_t rank, bool is_err) const {
  const std::string& pattern = is_err && !err_.empty() ? err_ : out_;
  if (RouteFor(rank, is_err) != Route::kFile) return "";
  PatternVars v = vars_;
  v.task_id = rank;
  if (rank < task_nodes_.size()) {
    v.node_index = task_nodes_[rank];
    if (v.node_index < static_cast<int64_t>(nodes_.size())) v.node = nodes_[v.node_index];
  }
  return ExpandOutputPattern(pattern, v);
}

Status StepOutputFiles::Check() {
  for (uint32_t r = 0; r < task_nodes_.size(); ++r) {
    for (bool is_err : {false, true}) {
      if (!PathFor(r, is_err).empty() && !For(r, is_err)) {
        return FailedPrecondition("Could not open " + std::string(is_err ? "stderr" : "stdout") +
                                  " file " + PathFor(r, is_err) + ": " + std::strerror(errno));
      }
    }
  }
  return Status::Ok();
}

std::ostream* StepOutputFiles::For(uint32_t rank, bool is_err) {
  if (RouteFor(rank, is_err) == Route::kDiscard) return &discard_;
  std::string path = PathFor(rank, is_err);
  if (path.empty()) return nullptr;
  auto it = files_.find(path);
  if (it != files_.end()) return it->second.get();
  auto f = std::make_unique<std::ofstream>(
      path, std::ios::out | (append_ ? std::ios::app : std::ios::trunc));
  if (!f->is_open()) return nullptr;
  return files_.emplace(path, std::move(f)).first->second.get();
}

Expected<StdinPlan> PlanStdin(const std::string& input) {
  StdinPlan plan;
  if (input.empty()) {
    plan.ranks = {0};
  } else if (input == "none") {
  } else if (input == "all") {
    plan.ranks = {-1};
  } else if (std::all_of(input.begin(), input.end(),
                         [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
    if (input.size() > 6) return InvalidArgument("Invalid --input task id: " + input);
    plan.ranks = {std::stoi(input)};
  } else {
    plan.file_pattern = input;
  }
  return plan;
}

}  // namespace sluice

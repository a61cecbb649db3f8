#include "restd/job_desc.h"

#include <array>
#include <optional>
#include <string_view>

namespace sluice {
namespace {

using nlohmann::json;

enum class Kind { kString, kInteger, kFlag, kNodes };

struct Field {
  std::string_view key;
  std::string_view option;  // sbatch's long option
  Kind kind;
};

// The job properties sbatch has an option for. "requeue" and "exclusive" are handled
// apart (a false value has a meaning of its own).
constexpr std::array<Field, 39> kFields{{
    {"account", "--account", Kind::kString},
    {"array", "--array", Kind::kString},
    {"begin_time", "--begin", Kind::kInteger},
    {"comment", "--comment", Kind::kString},
    {"constraints", "--constraint", Kind::kString},
    {"cpu_binding", "--cpu-bind", Kind::kString},
    {"cpus_per_gpu", "--cpus-per-gpu", Kind::kString},
    {"cpus_per_task", "--cpus-per-task", Kind::kInteger},
    {"deadline", "--deadline", Kind::kString},
    {"dependency", "--dependency", Kind::kString},
    {"distribution", "--distribution", Kind::kString},
    {"gpu_binding", "--gpu-bind", Kind::kString},
    {"gpus", "--gpus", Kind::kString},
    {"gpus_per_node", "--gpus-per-node", Kind::kString},
    {"gpus_per_task", "--gpus-per-task", Kind::kString},
    {"gres", "--gres", Kind::kString},
    {"hold", "--hold", Kind::kFlag},
    {"kill_on_invalid_dependency", "--kill-on-invalid-dep=yes", Kind::kFlag},
    {"licenses", "--licenses", Kind::kString},
    {"mail_type", "--mail-type", Kind::kString},
    {"mail_user", "--mail-user", Kind::kString},
    {"memory_per_cpu", "--mem-per-cpu", Kind::kInteger},
    {"memory_per_gpu", "--mem-per-gpu", Kind::kInteger},
    {"memory_per_node", "--mem", Kind::kInteger},
    {"minimum_cpus_per_node", "--mincpus", Kind::kInteger},
    {"name", "--job-name", Kind::kString},
    {"nice", "--nice", Kind::kInteger},
    {"nodes", "--nodes", Kind::kNodes},
    {"no_kill", "--no-kill", Kind::kFlag},
    {"open_mode", "--open-mode", Kind::kString},
    {"partition", "--partition", Kind::kString},
    {"priority", "--priority", Kind::kString},
    {"qos", "--qos", Kind::kString},
    {"reservation", "--reservation", Kind::kString},
    {"signal", "--signal", Kind::kString},
    {"standard_error", "--error", Kind::kString},
    {"standard_input", "--input", Kind::kString},
    {"standard_output", "--output", Kind::kString},
    {"tasks", "--ntasks", Kind::kInteger},
}};
constexpr std::array<Field, 4> kMoreFields{{
    {"tasks_per_node", "--ntasks-per-node", Kind::kInteger},
    {"time_limit", "--time", Kind::kInteger},
    {"time_minimum", "--time-min", Kind::kInteger},
    {"wckey", "--wckey", Kind::kString},
}};

const Field* FindField(std::string_view key) {
  for (const Field& f : kFields)
    if (f.key == key) return &f;
  for (const Field& f : kMoreFields)
    if (f.key == key) return &f;
  return nullptr;
}

Status WrongType(std::string_view key, std::string_view want) {
  return InvalidArgument("job." + std::string(key) + " must be " + std::string(want));
}

// A JSON scalar as the text of an option value.
Expected<std::string> Text(std::string_view key, const json& v, Kind kind) {
  if (kind == Kind::kInteger) {
    if (!v.is_number_integer()) return WrongType(key, "an integer");
    return std::to_string(v.get<int64_t>());
  }
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  return WrongType(key, "a string");
}

// "nodes": 2, "2-4", [2] or [2, 4].
Expected<std::string> NodesText(const json& v) {
  if (v.is_array()) {
    if (v.empty() || v.size() > 2) return WrongType("nodes", "[min] or [min, max]");
    std::string out;
    for (const json& n : v) {
      if (!n.is_number_integer()) return WrongType("nodes", "[min] or [min, max]");
      out += (out.empty() ? "" : "-") + std::to_string(n.get<int64_t>());
    }
    return out;
  }
  return Text("nodes", v, Kind::kString);
}

Status AddOption(const std::string& key, const json& v, std::vector<std::string>* args) {
  if (key == "requeue" || key == "exclusive") {
    if (v.is_boolean()) {
      if (key == "requeue")
        args->push_back(v.get<bool>() ? "--requeue" : "--no-requeue");
      else if (v.get<bool>())
        args->push_back("--exclusive");
      return Status::Ok();
    }
    if (key == "exclusive" && v.is_string()) {
      args->push_back("--exclusive=" + v.get<std::string>());
      return Status::Ok();
    }
    return WrongType(key, "true or false");
  }
  const Field* f = FindField(key);
  if (f == nullptr) return InvalidArgument("job." + key + " is not a field Sluice knows");
  if (f->kind == Kind::kFlag) {
    if (!v.is_boolean()) return WrongType(key, "true or false");
    if (v.get<bool>()) args->emplace_back(f->option);
    return Status::Ok();
  }
  Expected<std::string> text = f->kind == Kind::kNodes ? NodesText(v) : Text(key, v, f->kind);
  if (!text.ok()) return text.status();
  args->push_back(std::string(f->option) + "=" + *text);
  return Status::Ok();
}

}  // namespace

Expected<SbatchCall> SbatchCallFor(const json& job) {
  if (!job.is_object()) return InvalidArgument("job must be an object");
  SbatchCall call;
  bool has_environment = false;
  for (const auto& [key, v] : job.items()) {
    if (key == "environment") {
      if (!v.is_object()) return WrongType(key, "an object of variables");
      for (const auto& [name, value] : v.items()) {
        if (!value.is_string()) return WrongType("environment." + name, "a string");
        call.environ[name] = value.get<std::string>();
      }
      has_environment = true;
    } else if (key == "current_working_directory") {
      if (!v.is_string() || v.get<std::string>().empty()) return WrongType(key, "a path");
      call.cwd = v.get<std::string>();
    } else if (key == "argv") {
      if (!v.is_array()) return WrongType(key, "an array of strings");
      for (const json& arg : v) {
        if (!arg.is_string()) return WrongType(key, "an array of strings");
        call.script_args.push_back(arg.get<std::string>());
      }
    } else {
      RETURN_IF_ERROR(AddOption(key, v, &call.args));
    }
  }
  if (!has_environment)
    return InvalidArgument("job.environment is required (an object of variables, e.g. PATH)");
  return call;
}

Expected<std::vector<std::vector<std::string>>> ScontrolCallsFor(int64_t job_id, const json& job) {
  if (!job.is_object()) return InvalidArgument("the job description must be an object");
  // Job properties scontrol update can change, and its key for each.
  static const std::map<std::string, std::pair<std::string, Kind>> kUpdatable{
      {"comment", {"Comment", Kind::kString}},
      {"name", {"JobName", Kind::kString}},
      {"nice", {"Nice", Kind::kInteger}},
      {"time_limit", {"TimeLimit", Kind::kInteger}},
  };
  const std::string id = std::to_string(job_id);
  std::vector<std::string> update{"update", "JobId=" + id};
  std::vector<std::vector<std::string>> calls;
  std::optional<bool> hold;
  for (const auto& [key, v] : job.items()) {
    if (key == "hold") {
      if (!v.is_boolean()) return WrongType(key, "true or false");
      hold = v.get<bool>();
      continue;
    }
    auto it = kUpdatable.find(key);
    if (it == kUpdatable.end())
      return InvalidArgument("job." + key + " cannot be updated (or is not a field Sluice knows)");
    Expected<std::string> text = Text(key, v, it->second.second);
    if (!text.ok()) return text.status();
    update.push_back(it->second.first + "=" + *text);
  }
  if (update.size() > 2) calls.push_back(std::move(update));
  if (hold) calls.push_back({*hold ? "hold" : "release", id});
  if (calls.empty()) return InvalidArgument("the job description changes nothing");
  return calls;
}

}  // namespace sluice

#include "ctld/components/scheduler_config.h"

#include <sstream>

namespace sluice::ctld {
namespace {

std::string Lookup(const Config& c, const std::string& key) {
  auto it = c.raw.find(key);
  return it == c.raw.end() ? "" : it->second;
}

Status ApplyParam(const std::string& item, sched::SchedulerConfig* out) {
  auto eq = item.find('=');
  std::string key = item.substr(0, eq);
  if (key == "bf_conservative" && eq == std::string::npos) {
    out->policy = sched::SchedulerConfig::Policy::kConservative;
    return Status::Ok();
  }
  if (eq == std::string::npos) return Status::Ok();  // other Slurm flags: no effect here
  const std::string value = item.substr(eq + 1);
  if (key == "bf_order") {
    if (!sched::ParseBackfillOrder(value, &out->bf_order.order))
      return InvalidArgument("SchedulerParameters: bf_order=" + value +
                             " (want priority, sjbf, wfp3, unicep, f1 or sgtf)");
    return Status::Ok();
  }
  if (key == "queue_order") {
    if (!sched::ParseBackfillOrder(value, &out->queue_order))
      return InvalidArgument("SchedulerParameters: queue_order=" + value +
                             " (want priority, unicep, wfp3, sjbf, f1 or sgtf)");
    return Status::Ok();
  }
  if (key == "bf_predict") {
    if (value == "user2") {
      out->bf_predict = sched::SchedulerConfig::Prediction::kUser2;
    } else if (value == "none") {
      out->bf_predict = sched::SchedulerConfig::Prediction::kNone;
    } else {
      return InvalidArgument("SchedulerParameters: bf_predict=" + value + " (want user2 or none)");
    }
    return Status::Ok();
  }
  int64_t v = 0;
  try {
    size_t used = 0;
    v = std::stoll(item.substr(eq + 1), &used);
    if (used != item.size() - eq - 1 || v < 0) throw std::invalid_argument("");
  } catch (...) {
    if (key.rfind("bf_", 0) == 0)
      return InvalidArgument("SchedulerParameters: bad value in '" + item + "'");
    return Status::Ok();
  }
  if (key == "bf_max_job_test") out->bf_max_job_test = static_cast<int>(v);
  if (key == "bf_window") out->bf_window_s = v * 60;
  if (key == "bf_resolution") out->bf_resolution_s = std::max<int64_t>(1, v);
  if (key == "bf_starvation_factor") out->bf_order.starvation_factor = static_cast<double>(v);
  return Status::Ok();
}

}  // namespace

Expected<sched::SchedulerConfig> SchedulerConfigFrom(const Config& config) {
  sched::SchedulerConfig out;
  std::string type = Lookup(config, "SchedulerType");
  if (type == "sched/builtin") {
    out.policy = sched::SchedulerConfig::Policy::kFifo;
  } else if (!type.empty() && type != "sched/backfill") {
    return InvalidArgument("SchedulerType=" + type +
                           " is not supported (sched/backfill or sched/builtin)");
  }
  std::stringstream params(Lookup(config, "SchedulerParameters"));
  std::string item;
  while (std::getline(params, item, ',')) {
    if (!item.empty()) RETURN_IF_ERROR(ApplyParam(item, &out));
  }
  return out;
}

sched::SchedulerConfig SchedulerKnobsOf(const Config& config) {
  Expected<sched::SchedulerConfig> c = SchedulerConfigFrom(config);
  return c.ok() ? *c : sched::SchedulerConfig();
}

}  // namespace sluice::ctld

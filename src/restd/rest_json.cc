#include "restd/rest_json.h"

#include <map>
#include <utility>

#include "cli/query_json.h"
#include "common/hostlist.h"

namespace sluice {
namespace {

using nlohmann::json;

std::string Join(const google::protobuf::RepeatedPtrField<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ",") + s;
  return out;
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

json PartitionJson(const PartitionInfo& p, const std::map<std::string, const NodeInfo*>& nodes) {
  int64_t cpus = 0;
  for (const std::string& n : p.nodes())
    if (auto it = nodes.find(n); it != nodes.end()) cpus += it->second->cpus();
  json flags = json::array();
  if (p.is_default()) flags.push_back("default");
  json preempt = json::array();
  const std::string mode = p.preempt_mode().empty() ? "OFF" : p.preempt_mode();
  preempt.push_back(mode == "OFF" ? "disabled" : Lower(mode));
  return {
      {"flags", flags},
      {"preemption_mode", preempt},
      {"allowed_allocation_nodes", ""},
      {"allowed_accounts", p.allow_accounts().empty() ? "ALL" : p.allow_accounts()},
      {"allowed_groups", p.allow_groups().empty() ? "ALL" : p.allow_groups()},
      {"allowed_qos", p.allow_qos().empty() ? "ALL" : p.allow_qos()},
      {"alternative", ""},
      {"billing_weights", ""},
      {"default_memory_per_cpu", nullptr},
      {"default_memory_per_node", nullptr},
      {"default_time_limit", p.default_time_min() > 0 ? json(p.default_time_min()) : json()},
      {"denied_accounts", p.deny_accounts()},
      {"denied_qos", ""},
      {"preemption_grace_time", p.grace_time_s()},
      {"maximum_cpus_per_node", -1},
      {"maximum_memory_per_cpu", nullptr},
      {"maximum_memory_per_node", nullptr},
      {"maximum_nodes_per_job", p.max_nodes() > 0 ? p.max_nodes() : -1},
      {"max_time_limit", p.max_time_min() < 0 ? -1 : p.max_time_min()},
      {"min_nodes_per_job", 0},
      {"name", p.name()},
      {"nodes", p.nodes_expr().empty() ? CompressHostlist({p.nodes().begin(), p.nodes().end()})
                                       : p.nodes_expr()},
      {"over_time_limit", nullptr},
      {"priority_job_factor", p.priority_job_factor()},
      {"priority_tier", p.priority_tier()},
      {"qos", ""},
      {"state", p.up() ? "UP" : "DOWN"},
      {"total_cpus", cpus},
      {"total_nodes", p.nodes_size()},
      {"tres", "cpu=" + std::to_string(cpus) + ",node=" + std::to_string(p.nodes_size())},
  };
}

json ReservationJson(const ReservationInfo& r) {
  json flags = json::array();
  for (const std::string& f : r.flags()) flags.push_back(f);
  std::string users = Join(r.users());
  std::string accounts = Join(r.accounts());
  if (r.users_denied() && !users.empty()) users = "-" + users;
  if (r.accounts_denied() && !accounts.empty()) accounts = "-" + accounts;
  return {
      {"accounts", accounts},
      {"burst_buffer", ""},
      {"core_count", r.core_cnt()},
      {"core_spec_cnt", 0},
      {"end_time", r.end_time()},
      {"features", ""},
      {"flags", flags},
      {"groups", ""},
      {"licenses", ""},
      {"max_start_delay", 0},
      {"name", r.name()},
      {"node_count", r.nodes_size()},
      {"node_list", CompressHostlist({r.nodes().begin(), r.nodes().end()})},
      {"partition", r.partition()},
      {"purge_completed", {{"time", 0}}},
      {"start_time", r.start_time()},
      {"watts", nullptr},
      {"tres", r.tres()},
      {"users", users},
  };
}

json Envelope(const char* key, json items) {
  return {{"meta", OpenApiMeta()}, {"errors", json::array()}, {key, std::move(items)}};
}

}  // namespace

int SlurmErrno(const std::string& message) {
  static const std::pair<const char*, int> kKnown[] = {
      {"Invalid partition name specified", 2000},
      {"Access/permission denied", 2002},
      {"Invalid job id specified", 2017},
      {"Invalid node name specified", 2018},
      {"Requested reservation is invalid", 2048},
      {"Invalid authentication credential", 6000},
      {"Invalid JWT", 6000},
      {"Unable to contact slurm controller", 1007},
  };
  for (const auto& [text, number] : kKnown)
    if (message.find(text) != std::string::npos) return number;
  return -1;
}

json ErrorsJson(const std::vector<RestError>& errors) {
  json list = json::array();
  for (const RestError& e : errors)
    list.push_back({{"error", e.message}, {"error_number", e.error_number}});
  return {{"meta", OpenApiMeta()}, {"errors", list}};
}

json PartitionsJson(const GetPartitionsReply& partitions, const GetNodesReply& nodes) {
  std::map<std::string, const NodeInfo*> by_name;
  for (const NodeInfo& n : nodes.nodes()) by_name[n.name()] = &n;
  json list = json::array();
  for (const PartitionInfo& p : partitions.partitions()) list.push_back(PartitionJson(p, by_name));
  return Envelope("partitions", std::move(list));
}

json ReservationsJson(const ReservationReply& reply) {
  json list = json::array();
  for (const ReservationInfo& r : reply.reservations()) list.push_back(ReservationJson(r));
  return Envelope("reservations", std::move(list));
}

json PingsJson(const std::string& host, bool up) {
  json ping = {{"hostname", host},
               {"ping", up ? "UP" : "DOWN"},
               {"status", up ? 0 : -1},
               {"mode", "primary"}};
  return Envelope("pings", json::array({ping}));
}

}  // namespace sluice

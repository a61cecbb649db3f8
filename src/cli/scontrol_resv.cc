#include "cli/scontrol_resv.h"

#include <algorithm>

#include "cli/scontrol_show.h"

namespace sluice {
namespace {

std::string LowerKey(const std::string& arg) {
  std::string k = arg.substr(0, arg.find('='));
  std::transform(k.begin(), k.end(), k.begin(), ::tolower);
  while (!k.empty() && (k.back() == '+' || k.back() == '-')) k.pop_back();
  return k;
}

bool HasKey(const std::vector<std::string>& args, std::initializer_list<const char*> keys) {
  for (const std::string& a : args) {
    if (a.find('=') == std::string::npos) continue;
    const std::string k = LowerKey(a);
    for (const char* want : keys)
      if (k == want) return true;
  }
  return false;
}

// The scontrol-side checks of a create request, as Slurm's scontrol makes them.
std::string CreateProblem(const std::vector<std::string>& args) {
  if (!HasKey(args, {"starttime"}))
    return "A start time must be specified.  No reservation created.";
  if (!HasKey(args, {"endtime", "duration"}))
    return "An end time or duration must be specified.  No reservation created.";
  if (!HasKey(args, {"nodes", "nodelist", "nodecnt", "nodecount", "tres", "corecnt"}))
    return "Nodes, NodeCnt, CoreCnt or TRES must be specified.  No reservation created.";
  if (!HasKey(args, {"users", "user", "accounts", "account"}))
    return "Either Users/Groups and/or Accounts must be specified.  No reservation created.";
  return "";
}

}  // namespace

int ScontrolReservation(CliEnv& env, ReservationAction action, const std::vector<std::string>& args,
                        bool oneliner, bool quiet) {
  auto fail = [&](const std::string& msg) {
    if (!quiet) *env.err << msg << "\n";
    return 1;
  };
  ReservationRequest req;
  req.set_action(action);
  if (action == RESV_CREATE || action == RESV_UPDATE) {
    for (const std::string& a : args) req.add_args(a);
    if (action == RESV_CREATE) {
      const std::string problem = CreateProblem(args);
      if (!problem.empty()) return fail(problem);
    } else if (!HasKey(args, {"reservationname", "reservation"})) {
      return fail("Reservation must be given.  No reservation update.");
    }
  } else {
    // delete/show: "NAME", "ReservationName=NAME" or "Reservation=NAME".
    for (const std::string& a : args) {
      const size_t eq = a.find('=');
      req.set_name(eq == std::string::npos ? a : a.substr(eq + 1));
    }
    if (action == RESV_DELETE && req.name().empty())
      return fail("scontrol: error: too few arguments for keyword:delete");
  }
  Expected<ClientApiInterface*> api = env.connect();
  Expected<ReservationReply> rep =
      api.ok() ? (*api)->Reservation(req) : Expected<ReservationReply>(api.status());
  switch (action) {
    case RESV_CREATE:
      if (!rep.ok()) return fail("Error creating the reservation: " + rep.status().message());
      *env.out << "Reservation created: " << rep->name() << "\n";
      return 0;
    case RESV_UPDATE:
      if (!rep.ok()) return fail("Error updating the reservation: " + rep.status().message());
      *env.out << "Reservation updated.\n";
      return 0;
    case RESV_DELETE:
      if (!rep.ok())
        return fail("delete_reservation " + req.name() + ": " + rep.status().message());
      return 0;
    default:
      break;
  }
  if (!rep.ok()) {
    if (rep.status().code() == Code::kNotFound) return fail(rep.status().message());
    return fail("slurm_load_reservations error: " + rep.status().message());
  }
  if (rep->reservations().empty()) {
    *env.out << "No reservations in the system\n";
    return 0;
  }
  const int64_t now = rep->now() > 0 ? rep->now() : env.clock->Now();
  for (const ReservationInfo& r : rep->reservations()) {
    const std::string record = FormatReservationRecord(r, now);
    *env.out << (oneliner ? OneLiner(record) : record);
  }
  return 0;
}

}  // namespace sluice

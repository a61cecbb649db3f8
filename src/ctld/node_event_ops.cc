// Node-state history for accounting (sreport's Down / PLND Down): after each commit (and
// at most once a second otherwise) the owner thread compares every node's availability
// with what it last posted and posts a NodeEventSet for each change to the AcctWriter
// (queued; the owner never touches the database). What a node is:
//   MAINT  inside a live Flags=MAINT reservation (planned down; wins over the rest)
//   DOWN   set down by an admin (its reason) or not responding ("Not responding")
//   DRAIN  drained/draining by an admin or the health check (its reason)
//   ""     available
//   unknown: not registered since this controller started and not yet timed out; nothing
//   is posted, so an open event from before a restart stays open until the node's fate
//   is known (it registers: closed; it times out: the same DOWN event continues).
// NodeEventsResync (start-up) posts every node whose state is already known, so events a
// crash lost are opened (from the admin's reason time) and stale ones closed.
#include <set>

#include "ctld/controller.h"

namespace sluice::ctld {
namespace {

struct Wanted {
  bool known = false;
  std::string state;
  std::string reason;
};

Wanted WantedOf(const NodeRuntime& n, const std::set<std::string>& maint) {
  if (maint.count(n.cfg.name)) return {true, "MAINT", "Reserved for maintenance"};
  if (n.admin.down) return {true, "DOWN", n.admin.reason};
  if (!n.responding) return {true, "DOWN", "Not responding"};
  if (n.admin.drain) return {true, "DRAIN", n.admin.reason};
  if (!n.registered) return {};
  return {true, "", ""};
}

}  // namespace

void Controller::PostNodeEvents(bool resync) {
  int64_t now = Now();
  std::set<std::string> maint = resvs_.NodesInMaint(now);
  std::vector<acct::AcctOp> ops;
  for (const NodeRuntime& n : nodes_.nodes()) {
    Wanted w = WantedOf(n, maint);
    if (!w.known) continue;
    std::string key = w.state + "\n" + w.reason;
    auto it = node_event_keys_.find(n.cfg.name);
    if (it != node_event_keys_.end() && it->second == key) continue;
    node_event_keys_[n.cfg.name] = key;
    int64_t at = now;
    // A restart re-opens a lost admin event from when the admin acted.
    bool admin = w.state == "DRAIN" || (w.state == "DOWN" && n.admin.down);
    if (resync && admin && n.admin.reason_time > 0 && n.admin.reason_time <= now) {
      at = n.admin.reason_time;
    }
    ops.push_back(acct::NodeEventSet{n.cfg.name, at, w.state, w.reason, n.cfg.cpus,
                                     static_cast<int64_t>(n.cfg.gpus.size())});
  }
  if (!ops.empty()) acct_->Post(std::move(ops));
}

void Controller::NodeEventsResync() {
  if (!acct_) return;
  node_event_keys_.clear();
  PostNodeEvents(true);
  node_events_scanned_ = Now();
}

void Controller::NodeEventsAfterCommit(bool nodes_changed) {
  if (!acct_ || (!nodes_changed && Now() == node_events_scanned_)) return;
  node_events_scanned_ = Now();
  PostNodeEvents(false);
}

}  // namespace sluice::ctld

// AcctFeed: the controller's feed to accounting. Every committed job change becomes the
// upsert of its attempt's record (plus its batch step, and the close of older attempts
// after a requeue); srun steps are recorded when created and when srun reports their end
// (or when their job ends); node availability changes become node events (sreport's Down
// / PLND Down). Everything is posted to an AcctSink (the AcctWriter's queue): the owner
// thread never touches the accounting database. Without a sink the feed does nothing.
//
// What a node is, for its events:
//   MAINT  inside a live Flags=MAINT reservation (planned down; wins over the rest)
//   DOWN   set down by an admin (its reason) or not responding ("Not responding")
//   DRAIN  drained/draining by an admin or the health check (its reason)
//   ""     available
//   unknown: not registered since this controller started and not yet timed out; nothing
//   is posted, so an open event from before a restart stays open until the node's fate
//   is known (it registers: closed; it times out: the same DOWN event continues).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "acct/acct_record.h"
#include "acct/acct_writer.h"
#include "client.pb.h"
#include "common/clock.h"
#include "ctld/components/job_table.h"
#include "ctld/components/node_table.h"
#include "ctld/components/step_resources.h"

namespace sluice::ctld {

class AcctFeed {
 public:
  explicit AcctFeed(const Clock* clock) : clock_(clock) {}
  void SetSink(acct::AcctSink* sink) { sink_ = sink; }
  bool enabled() const { return sink_ != nullptr; }
  int64_t QueueSize() const { return sink_ ? sink_->QueueSize() : 0; }

  // ---- jobs and steps ----
  void JobCommitted(const JobInfo& job);
  void StepStarted(const JobInfo& job, const ActiveStep& step);
  // srun reported the step's end (its exit and usage in `req.acct_step_ends`).
  void StepEnded(int64_t job_id, int step_id, const KeepaliveRequest& req);
  // The batch step's usage from the job's end report (written with the job's next commit).
  void BatchUsage(int64_t job_id, acct::StepUsage usage);
  // sacct's live part: `job`'s current record, its batch step and open srun steps.
  void AddLive(const JobInfo& job, AcctJobsReply* reply) const;

  // ---- node events ----
  // After a commit: posts the nodes whose availability changed (scans when `changed`,
  // else at most once a second). `maint` gives the nodes in a live MAINT reservation; it
  // is called only when a scan is due.
  void NodesCommitted(const NodeTable& nodes, const std::function<std::set<std::string>()>& maint,
                      bool changed);
  // Start-up: posts every node whose availability is known (opens lost events from the
  // admin's reason time, closes stale ones).
  void NodesResync(const NodeTable& nodes, const std::set<std::string>& maint);

 private:
  int64_t Now() const { return clock_->Now(); }
  acct::StepUsage UsageOf(int64_t job_id) const;  // none yet: -1 / ""
  void PostNodeEvents(const NodeTable& nodes, const std::set<std::string>& maint, bool resync);

  const Clock* clock_;
  acct::AcctSink* sink_ = nullptr;
  std::map<int64_t, std::map<int, acct::AcctStepRecord>> open_steps_;  // srun steps
  std::map<int64_t, acct::StepUsage> batch_usage_;
  std::map<std::string, std::string> node_event_keys_;  // node -> "state\nreason" posted
  int64_t node_events_scanned_ = 0;
};

}  // namespace sluice::ctld

// sacctmgr show output: rows of the reply turned into Slurm's columns. Each column is
// the field's value right-justified in its width (Slurm's defaults, or format=name%N;
// %-N left-justifies), too long values cut to width-1 chars plus '+', one space after
// each; a header line and a dashed line unless -n; -p/-P: '|' separated, no padding.
// Default columns (Slurm 22.05):
//   cluster: Cluster ControlHost ControlPort RPC Share GrpJobs GrpTRES GrpSubmit MaxJobs
//            MaxTRES MaxSubmit MaxWall QOS Def QOS
//   account: Account Descr Org [withassoc/-s: + Cluster ParentName User Share GrpJobs
//            GrpTRES GrpSubmit MaxJobs MaxTRES MaxSubmit MaxWall QOS Def QOS]
//   user:    User Def Acct Admin [-s: + Cluster Account Partition Share MaxJobs MaxTRES
//            MaxSubmit MaxWall GrpTRES QOS Def QOS]
//   qos:     Name Priority GraceTime Preempt PreemptMode Flags UsageFactor GrpTRES
//            GrpTRESMins GrpJobs GrpSubmit MaxTRES MaxWall MaxTRESPU MaxJobsPU MaxSubmitPU
//   association: Cluster Account User Partition Share GrpJobs GrpTRES GrpSubmit MaxJobs
//            MaxTRES MaxSubmit MaxWall QOS Def QOS
//   tres:    Type Name ID;  wckey: Name Cluster User (none: TrackWCKey=no)
#pragma once

#include <string>
#include <vector>

#include "cli/sacctmgr_args.h"
#include "cli/sacctmgr_json.h"
#include "client.pb.h"
#include "common/status.h"

namespace sluice {

// The rendered table (with trailing newline per line), or an error naming an unknown
// format field.
// `tres`: the rows of `show tres`.
Expected<std::string> FormatSacctmgrShow(const SacctmgrCommand& cmd, const SacctmgrReply& reply,
                                         const std::string& cluster,
                                         const std::vector<TresRow>& tres = {});

}  // namespace sluice

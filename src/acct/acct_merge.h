// MergeLive: sacct's answer = the store's history overlaid with the controller's live
// records (pure). A live job/step replaces the stored one with the same key
// ((job_id, attempt) / (job_id, attempt, step_id)); stored rows the live side lacks
// stay (older attempts, ended steps, purged jobs); a live step without usage (-1) keeps
// the stored MaxRSS/TotalCPU. Output sorted by key.
#pragma once

#include "acct/acct_record.h"

namespace sluice::acct {

AcctData MergeLive(AcctData stored, const AcctData& live);

}  // namespace sluice::acct

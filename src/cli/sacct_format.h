// sacct output (pure): the rows (a job attempt, then its steps), the fields of
// -o/--format with Slurm 22.05's default widths and justification, value formatting
// (JobID "123", "123.batch", "44_2"; State "CANCELLED by <uid>" for jobs; ExitCode
// "code:signal"; Elapsed "HH:MM:SS"; TRES strings; MaxRSS "2048K"; times
// "2026-11-30T02:26:13"/"Unknown"), fixed-width printing (a value wider than its column
// is cut with a trailing '+', as Slurm does), --parsable/--parsable2, and --json (the
// shape of Slurm's `sacct --json`: {"meta", "errors", "jobs":[{job_id, name, state:
// {current, reason}, exit_code:{status, return_code}, time:{...}, steps:[...]}]}).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "client.pb.h"
#include "common/status.h"

namespace sluice {

struct SacctField {
  std::string name;  // canonical spelling (header)
  int width = 10;
  bool right = true;
};

// "JobID,State%20,exitcode" -> fields; unknown name -> "Invalid field requested: \"x\"".
Expected<std::vector<SacctField>> ParseSacctFormat(const std::string& spec);
// The same against another command's fields (sstat), matched case-insensitively.
Expected<std::vector<SacctField>> ParseFieldList(const std::string& spec,
                                                 const std::vector<SacctField>& known);
std::vector<SacctField> DefaultSacctFields();

struct SacctRow {
  const AcctJob* job = nullptr;
  const AcctStep* step = nullptr;  // nullptr: the job (allocation) row
};

// Field value of one row; `now` ends the Elapsed of running rows.
std::string SacctValue(const std::string& field, const SacctRow& row, int64_t now);

// Column printing of sacct and sstat: 0: fixed columns (a value wider than its column is
// cut with a trailing '+'), 1: --parsable ("a|b|"), 2: --parsable2 ("a|b").
std::string FormatColumns(const std::vector<SacctField>& fields, size_t rows,
                          const std::function<std::string(const SacctField&, size_t row)>& value,
                          int parsable, bool header);
std::string FormatSacct(const std::vector<SacctField>& fields, const std::vector<SacctRow>& rows,
                        int parsable, bool header, int64_t now);
std::string FormatSacctJson(const std::vector<SacctRow>& rows, int64_t now,
                            const std::string& cluster);

// "2048K" (empty for a negative, unknown, size); CPU time as Slurm: [D-][HH:]MM:SS.mmm.
std::string KbText(int64_t kb);
std::string CpuText(int64_t us);

// State names as sacct prints them (job rows: "CANCELLED by <uid>"; the State field passes
// the uid that cancelled the job, or its owner when that is unknown).
std::string SacctStateName(int state, bool job_row, uint32_t uid);

}  // namespace sluice

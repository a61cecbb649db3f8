// Trace readers. Parse* functions are pure (text in, Trace out); ReadTrace reads a file
// (plain or gzip, via zlib) and dispatches on the format. Malformed input is an error
// naming the file and line: "log.swf:12: expected 18 fields, got 5".
//
// Formats:
//  - SWF (Standard Workload Format, Parallel Workloads Archive): `;` header lines
//    (MaxNodes:, MaxProcs: are read), job lines of exactly 18 whitespace-separated numbers,
//    -1 = unknown. Used: 1 job number, 2 submit time, 4 run time, 5 allocated processors,
//    8 requested processors (falls back to field 5 when -1), 9 requested time.
//  - GPU CSV, recognised by its header (column order free, extra columns ignored):
//      normalized  job_id,submit_s,gpus,nodes,runtime_s[,...]  (*.norm.csv; empty = unknown)
//      Philly      timestamp,duration,num_gpus[,...]  (timestamp "YYYY-MM-DD HH:MM:SS",
//                  job id = 0-based row number, as in the normalized file)
//      Alibaba     name,num_gpu,creation_time,deletion_time,scheduled_time[,...]
//                  (run time = deletion - scheduled; pods never scheduled are dropped;
//                  a fractional-GPU pod counts as one GPU, nodes = 1)
// `limit` > 0 keeps only the first `limit` jobs, in submit order, that survive cleaning.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"
#include "sim/trace.h"

namespace sluice::sim {

enum class TraceFormat { kAuto, kSwf, kGpuCsv };

// "swf" | "gpu-csv" | "auto".
Expected<TraceFormat> ParseTraceFormat(std::string_view text);

Expected<Trace> ParseSwf(std::string_view text, std::string_view name, int64_t limit = 0);
Expected<Trace> ParseGpuCsv(std::string_view text, std::string_view name, int64_t limit = 0);

// Whole file contents; gzip files (.gz or gzip magic) are decompressed.
Expected<std::string> ReadMaybeGzipFile(const std::string& path);

// kAuto picks SWF for *.swf / *.swf.gz and GPU CSV for *.csv / *.csv.gz.
Expected<Trace> ReadTrace(const std::string& path, TraceFormat format, int64_t limit = 0);

}  // namespace sluice::sim

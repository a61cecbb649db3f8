// Trace file I/O: gzip-aware file reading and format dispatch (see trace_reader.h).
// The only file in the simulator that touches the filesystem for traces.
#include <fmt/format.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>

#include "sim/trace_reader.h"

namespace sluice::sim {

namespace {

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

}  // namespace

Expected<TraceFormat> ParseTraceFormat(std::string_view text) {
  if (text == "swf") return TraceFormat::kSwf;
  if (text == "gpu-csv" || text == "csv") return TraceFormat::kGpuCsv;
  if (text == "auto" || text.empty()) return TraceFormat::kAuto;
  return InvalidArgument(fmt::format("unknown trace format '{}' (want swf or gpu-csv)", text));
}

Expected<std::string> ReadMaybeGzipFile(const std::string& path) {
  // gzopen reads plain files unchanged and decompresses gzip ones.
  gzFile file = gzopen(path.c_str(), "rb");
  if (file == nullptr) {
    return NotFound(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  }
  gzbuffer(file, 1 << 17);
  std::string data;
  char buffer[1 << 16];
  while (true) {
    int n = gzread(file, buffer, sizeof(buffer));
    if (n < 0) {
      int code = 0;
      std::string message = gzerror(file, &code);
      gzclose(file);
      return InvalidArgument(fmt::format("{}: cannot read: {}", path, message));
    }
    if (n == 0) break;
    data.append(buffer, n);
  }
  int rc = gzclose(file);
  if (rc != Z_OK && rc != Z_BUF_ERROR) {
    return InvalidArgument(fmt::format("{}: truncated or corrupt gzip data", path));
  }
  if (rc == Z_BUF_ERROR) {
    return InvalidArgument(fmt::format("{}: truncated gzip data", path));
  }
  return data;
}

Expected<Trace> ReadTrace(const std::string& path, TraceFormat format, int64_t limit) {
  if (format == TraceFormat::kAuto) {
    if (EndsWith(path, ".swf") || EndsWith(path, ".swf.gz")) {
      format = TraceFormat::kSwf;
    } else if (EndsWith(path, ".csv") || EndsWith(path, ".csv.gz")) {
      format = TraceFormat::kGpuCsv;
    } else {
      return InvalidArgument(
          fmt::format("{}: cannot tell the trace format from the name; pass --format", path));
    }
  }
  ASSIGN_OR_RETURN(std::string text, ReadMaybeGzipFile(path));
  std::string name = path.substr(path.find_last_of('/') + 1);
  if (format == TraceFormat::kSwf) return ParseSwf(text, name, limit);
  return ParseGpuCsv(text, name, limit);
}

}  // namespace sluice::sim

// CheckRequestLimits: see request_limits.h.
#include "rpc/request_limits.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <string_view>

namespace sluice {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

size_t LimitFor(std::string_view name) {
  static const std::set<std::string_view> kPaths = {
      "work_dir", "stdout_pattern", "stderr_pattern", "stdin_path", "command", "input_pattern"};
  static const std::set<std::string_view> kLists = {"nodelist",   "exclude",    "constraint",
                                                    "dependency", "array_spec", "nodes",
                                                    "args",       "credential"};
  if (name == "script") return kMaxScriptBytes;
  if (kPaths.count(name)) return kMaxPathBytes;
  if (kLists.count(name)) return kMaxListBytes;
  return kMaxStringBytes;
}

Status TooLong(std::string* detail, std::string what) {
  if (detail) *detail = std::move(what);
  return InvalidArgument(kMsgTooLong);
}

Status CheckRepeated(const Message& m, const Reflection* r, const FieldDescriptor* f,
                     std::string* detail) {
  const int n = r->FieldSize(m, f);
  const std::string& name = f->name();
  size_t max_entries = name == "env" ? kMaxEnvEntries : name == "argv" ? kMaxArgvEntries : 0;
  size_t max_total = name == "env" ? kMaxEnvBytes : name == "argv" ? kMaxArgvBytes : 0;
  if (max_entries == 0) {  // other repeated strings: each bounded like a single one
    max_entries = kMaxEnvEntries;
    max_total = 0;
  }
  if (static_cast<size_t>(n) > max_entries) {
    return TooLong(detail, fmt::format("{}: {} entries (limit {})", name, n, max_entries));
  }
  size_t total = 0;
  std::string scratch;
  for (int i = 0; i < n; ++i) {
    const std::string& v = r->GetRepeatedStringReference(m, f, i, &scratch);
    total += v.size();
    if (max_total == 0 && v.size() > LimitFor(name)) {
      return TooLong(detail,
                     fmt::format("{}[{}]: {} bytes (limit {})", name, i, v.size(), LimitFor(name)));
    }
  }
  if (max_total != 0 && total > max_total) {
    return TooLong(detail, fmt::format("{}: {} bytes in total (limit {})", name, total, max_total));
  }
  return Status::Ok();
}

Status Check(const Message& m, std::string* detail, int depth) {
  if (depth > 16) return TooLong(detail, "request nested too deeply");
  const Reflection* r = m.GetReflection();
  std::vector<const FieldDescriptor*> fields;
  r->ListFields(m, &fields);
  for (const FieldDescriptor* f : fields) {
    if (f->is_repeated() && f->cpp_type() != FieldDescriptor::CPPTYPE_STRING &&
        static_cast<size_t>(r->FieldSize(m, f)) > kMaxRepeatedEntries) {
      return TooLong(detail, fmt::format("{}: {} entries (limit {})", f->name(), r->FieldSize(m, f),
                                         kMaxRepeatedEntries));
    }
    if (f->cpp_type() == FieldDescriptor::CPPTYPE_STRING) {
      if (f->is_repeated()) {
        RETURN_IF_ERROR(CheckRepeated(m, r, f, detail));
        continue;
      }
      std::string scratch;
      const std::string& v = r->GetStringReference(m, f, &scratch);
      if (v.size() > LimitFor(f->name())) {
        return TooLong(detail, fmt::format("{}: {} bytes (limit {})", f->name(), v.size(),
                                           LimitFor(f->name())));
      }
    } else if (f->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      if (f->is_repeated()) {
        for (int i = 0; i < r->FieldSize(m, f); ++i) {
          RETURN_IF_ERROR(Check(r->GetRepeatedMessage(m, f, i), detail, depth + 1));
        }
      } else {
        RETURN_IF_ERROR(Check(r->GetMessage(m, f), detail, depth + 1));
      }
    }
  }
  return Status::Ok();
}

}  // namespace

Status CheckRequestLimits(const Message& request, std::string* detail) {
  // A request smaller than every limit cannot break one: a string over a limit, or more
  // entries than a limit, takes at least that many bytes on the wire.
  constexpr size_t kSmallest = std::min({kMaxStringBytes, kMaxPathBytes, kMaxListBytes,
                                         kMaxEnvEntries, kMaxArgvEntries, kMaxRepeatedEntries});
  if (request.ByteSizeLong() <= kSmallest) return Status::Ok();
  return Check(request, detail, 0);
}

Status CheckBeforeSending(const Message& request) {
  if (request.ByteSizeLong() <= kMaxListBytes) return Status::Ok();
  return Check(request, nullptr, 0);
}

}  // namespace sluice

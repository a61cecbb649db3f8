// sinfo's fields, row aggregation and formats.
// Rows: for each partition (in the controller's order), its nodes are grouped so that
// nodes whose printed non-aggregate fields are equal share a row; aggregate fields
// (%N %n %o nodelists, %D count, %A/%F node-state counts, %C CPU-state sums) combine the
// group. With node_mode (-N) every node gets its own row per partition, ordered by name.
// Without, rows are ordered by partition, then state (mixed, allocated, idle, down,
// unknown), then first node name.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "cli/format_engine.h"
#include "common/status.h"
#include "types.pb.h"

namespace sluice {

inline constexpr char kSinfoDefaultFormat[] = "%9P %.5a %.10l %.6D %.6t %N";
inline constexpr char kSinfoLongFormat[] = "%9P %.5a %.10l %.10s %.4r %.8h %.10g %.6D %.11T %N";
inline constexpr char kSinfoNodeFormat[] = "%#N %.6D %.9P %6t";
inline constexpr char kSinfoNodeLongFormat[] =
    "%#N %.6D %.9P %.11T %4c %.8z %.6m %.8d %.6w %.8f %20E";
inline constexpr char kSinfoSummaryFormat[] = "%9P %.5a %.10l %.16F %N";
inline constexpr char kSinfoReasonFormat[] = "%20E %9u %19H %N";
inline constexpr char kSinfoReasonLongFormat[] = "%20E %12U %19H %6t %N";

struct SinfoRow {
  const PartitionInfo* part = nullptr;
  std::vector<const NodeInfo*> nodes;
};

// Resolves -O names to letter keys; error "Invalid node format specification: x".
Status ValidateSinfoFields(std::vector<FormatField>* fields);

using UserNameFn = std::function<std::string(uint32_t)>;

std::string SinfoHeader(const std::string& key);
std::string SinfoValue(const std::string& key, const SinfoRow& row, const UserNameFn& user);

std::vector<SinfoRow> BuildSinfoRows(const std::vector<FormatField>& fields,
                                     const std::vector<const PartitionInfo*>& parts,
                                     const std::vector<const NodeInfo*>& nodes, bool node_mode,
                                     const UserNameFn& user);

// Fills auto widths ("%#N": at least 9) and renders header + rows.
std::string SinfoFormat(std::vector<FormatField> fields, const std::vector<SinfoRow>& rows,
                        bool header, const UserNameFn& user);

}  // namespace sluice

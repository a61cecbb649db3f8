// TRESBillingWeights parsing and billing (see tres_billing.h).
#include "common/tres_billing.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <string>

#include "common/text_util.h"

namespace sluice {
namespace {

Status Bad(std::string_view s, std::string_view why) {
  return InvalidArgument(fmt::format("invalid TRESBillingWeights '{}': {}", s, why));
}

// "0.25G" -> 0.25 / 1024 per MB; "2" -> 2 per MB.
Expected<double> ParseWeight(std::string_view v, bool is_mem) {
  std::string text(v);
  double scale = 1.0;
  if (is_mem && !text.empty() && std::isalpha(static_cast<unsigned char>(text.back()))) {
    char unit = static_cast<char>(std::toupper(static_cast<unsigned char>(text.back())));
    text.pop_back();
    if (unit == 'K')
      scale = 1024.0;
    else if (unit == 'M')
      scale = 1.0;
    else if (unit == 'G')
      scale = 1.0 / 1024.0;
    else if (unit == 'T')
      scale = 1.0 / (1024.0 * 1024.0);
    else
      return InvalidArgument("bad unit");
  }
  if (text.empty()) return InvalidArgument("empty weight");
  char* end = nullptr;
  double d = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(d) || d < 0) {
    return InvalidArgument("bad weight");
  }
  return d * scale;
}

Status ApplyItem(std::string_view s, std::string_view item, TresBillingWeights* w) {
  size_t eq = item.find('=');
  if (eq == std::string_view::npos)
    return Bad(s, fmt::format("expected TRES=weight in '{}'", item));
  std::string_view name = item.substr(0, eq);
  bool is_mem = EqualsIgnoreCase(name, "Mem");
  auto weight = ParseWeight(item.substr(eq + 1), is_mem);
  if (!weight.ok()) return Bad(s, fmt::format("{} in '{}'", weight.status().message(), item));
  if (EqualsIgnoreCase(name, "CPU"))
    w->cpu = *weight;
  else if (is_mem)
    w->mem_per_mb = *weight;
  else if (EqualsIgnoreCase(name, "Node"))
    w->node = *weight;
  else if (EqualsIgnoreCase(name, "GRES/gpu"))
    w->gpu = *weight;
  else if (StartsWithIgnoreCase(name, "GRES/gpu:"))
    w->gpu_type[std::string(name.substr(9))] = *weight;
  else if (StartsWithIgnoreCase(name, "GRES/") || StartsWithIgnoreCase(name, "License/") ||
           EqualsIgnoreCase(name, "Energy") || EqualsIgnoreCase(name, "FS/Disk") ||
           EqualsIgnoreCase(name, "Billing")) {
    // Known TRES kinds Sluice does not allocate: accepted, weigh nothing.
  } else {
    return Bad(s, fmt::format("unknown TRES '{}'", name));
  }
  return Status::Ok();
}

}  // namespace

Expected<TresBillingWeights> ParseTresBillingWeights(std::string_view s) {
  TresBillingWeights w;
  if (s.empty()) return w;
  w.configured = true;
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t comma = s.find(',', pos);
    if (comma == std::string_view::npos) comma = s.size();
    std::string_view item = s.substr(pos, comma - pos);
    if (item.empty()) return Bad(s, "empty item");
    RETURN_IF_ERROR(ApplyItem(s, item, &w));
    pos = comma + 1;
  }
  return w;
}

double TresBilling(const TresBillingWeights& w, const TresAlloc& a) {
  if (!w.configured) return static_cast<double>(a.cpus);
  double gpu_weight = w.gpu;
  auto it = w.gpu_type.find(a.gpu_type);
  if (!a.gpu_type.empty() && it != w.gpu_type.end()) gpu_weight = it->second;
  return w.cpu * a.cpus + w.mem_per_mb * a.mem_mb + w.node * a.nodes + gpu_weight * a.gpus;
}

}  // namespace sluice

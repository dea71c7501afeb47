#include "npu_smi.hpp"

#include <charconv>
#include <sstream>

#include "detail/lines.hpp"

namespace skillrt::npu_remote {

namespace {

std::vector<std::string> cells_of(std::string_view line) {
  std::vector<std::string> cells;
  line = detail::strip(line);
  if (line.size() < 2 || line.front() != '|') return cells;
  line.remove_prefix(1);
  if (line.back() == '|') line.remove_suffix(1);
  size_t start = 0;
  while (start <= line.size()) {
    size_t bar = line.find('|', start);
    if (bar == std::string_view::npos) bar = line.size();
    cells.emplace_back(detail::strip(line.substr(start, bar - start)));
    start = bar + 1;
  }
  return cells;
}

std::vector<std::string> tokens_of(const std::string& cell) {
  std::string spaced;
  for (char c : cell) {
    if (c == '/') {
      spaced += " / ";
    } else {
      spaced += c;
    }
  }
  std::istringstream in(spaced);
  std::vector<std::string> out;
  for (std::string t; in >> t;) out.push_back(t);
  return out;
}

bool to_int(const std::string& s, int& v) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && p == s.data() + s.size();
}

std::optional<double> to_number(const std::string& s) {
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

// The numbers of a cell, "-" and "NA" kept as empty slots so columns stay aligned.
std::vector<std::optional<double>> numbers_of(const std::string& cell) {
  std::vector<std::optional<double>> out;
  for (const std::string& t : tokens_of(cell)) {
    if (t == "/") continue;
    out.push_back(to_number(t));
  }
  return out;
}

}  // namespace

NpuSmiInfo parse_npu_smi(std::string_view text) {
  NpuSmiInfo info;
  // Rows before any header are read as devices, so an excerpt without its header still parses.
  enum class Section { kDevices, kProcesses } section = Section::kDevices;
  NpuChip* pending = nullptr;  // first row of a device seen, second row expected
  for (std::string_view line : detail::split_lines(text)) {
    const std::vector<std::string> cells = cells_of(line);
    if (cells.empty()) continue;
    if (cells[0].rfind("npu-smi ", 0) == 0) {
      const size_t at = cells[0].find("Version:");
      if (at != std::string::npos) {
        const auto t = tokens_of(cells[0].substr(at + 8));
        if (!t.empty()) info.version = t[0];
      }
      continue;
    }
    if (cells.size() >= 2 && cells[1].rfind("Process id", 0) == 0) {
      section = Section::kProcesses;
      continue;
    }
    if (cells[0].rfind("NPU", 0) == 0 && cells[0].find("Name") != std::string::npos) {
      section = Section::kDevices;
      continue;
    }
    if (cells[0].rfind("Chip", 0) == 0) continue;  // second header row
    if (section == Section::kProcesses) {
      if (cells.size() < 4) continue;
      const auto ids = tokens_of(cells[0]);
      NpuProcess p;
      if (ids.size() < 2 || !to_int(ids[0], p.npu) || !to_int(ids[1], p.chip)) continue;
      auto pid = to_number(cells[1]);
      if (!pid) continue;
      p.pid = static_cast<long long>(*pid);
      p.name = cells[2];
      p.memory_mb = to_number(cells[3]);
      info.processes.push_back(p);
      continue;
    }
    if (section != Section::kDevices || cells.size() < 3) continue;
    const auto ids = tokens_of(cells[0]);
    if (ids.empty()) continue;
    int first = 0;
    if (!to_int(ids[0], first)) continue;
    const bool is_second_row = pending != nullptr && cells[1].find(':') != std::string::npos;
    if (is_second_row) {
      NpuChip& c = *pending;
      c.chip = first;
      int phy = 0;
      if (ids.size() >= 2 && to_int(ids[1], phy)) {
        c.device = phy;
        c.device_from_phy_id = true;
      }
      c.bus_id = cells[1];
      const auto n = numbers_of(cells[2]);
      if (!n.empty()) c.aicore_pct = n[0];
      if (n.size() >= 3) {
        c.memory_used_mb = n[1];
        c.memory_total_mb = n[2];
      }
      if (n.size() >= 5) {
        c.hbm_used_mb = n[3];
        c.hbm_total_mb = n[4];
      }
      pending = nullptr;
      continue;
    }
    NpuChip c;
    c.npu = first;
    c.device = first;
    if (ids.size() >= 2) c.name = ids[1];
    c.health = cells[1];
    const auto n = numbers_of(cells[2]);
    if (!n.empty()) c.power_w = n[0];
    if (n.size() >= 2) c.temp_c = n[1];
    info.chips.push_back(c);
    pending = &info.chips.back();
  }
  return info;
}

}  // namespace skillrt::npu_remote

// Generates a standalone Python reproduction: runs one API call on CPU and on a device and saves
// the .npy pairs, the environment and a case.json in the layout the compare step reads.
#ifndef SKILLRT_API_CONSISTENCY_REPRO_HPP_
#define SKILLRT_API_CONSISTENCY_REPRO_HPP_

#include <nlohmann/json.hpp>
#include <string>

namespace skillrt::apic {

using Json = nlohmann::json;

// request: {api, args: [tensor spec | literal], kwargs: {name: tensor spec | literal}, seed,
// device, runs, golden_dtype}. A tensor spec is {"shape": [...], "dtype": "float16", "low",
// "high"}. Throws std::invalid_argument naming the bad field.
std::string generate_reproduction(const Json& request);

}  // namespace skillrt::apic

#endif  // SKILLRT_API_CONSISTENCY_REPRO_HPP_

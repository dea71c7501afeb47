# skillrt_engine_library(<name> [OBJECT]
#     SOURCES <file>...
#     [INCLUDE_DIR <dir>]       public include directory (default: the calling directory)
#     [CXX_STANDARD <n>]        the C++ standard its users need too (default: 17)
#     [PUBLIC <lib>...]         what its headers expose
#     [PRIVATE <lib>...])       what only its sources use
#
# The code of a plugin that its tests and benchmarks link directly, apart from the entry point.
# Built position-independent with hidden visibility, because it ends up inside a plugin's .so,
# which exports only the ABI entry point; the sanitizer and warning settings of the project come
# along. STATIC by default; OBJECT for code that one plugin and one test binary share.
include_guard(GLOBAL)

function(skillrt_engine_library name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "OBJECT" "INCLUDE_DIR;CXX_STANDARD"
                        "SOURCES;PUBLIC;PRIVATE")
  if(NOT arg_SOURCES)
    message(FATAL_ERROR "skillrt_engine_library(${name}): SOURCES is required")
  endif()
  if(arg_OBJECT)
    add_library(${name} OBJECT ${arg_SOURCES})
  else()
    add_library(${name} STATIC ${arg_SOURCES})
  endif()
  if(NOT arg_INCLUDE_DIR)
    set(arg_INCLUDE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
  endif()
  if(NOT arg_CXX_STANDARD)
    set(arg_CXX_STANDARD 17)
  endif()
  target_include_directories(${name} PUBLIC ${arg_INCLUDE_DIR})
  target_compile_features(${name} PUBLIC cxx_std_${arg_CXX_STANDARD})
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON
    CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
  target_link_libraries(${name} PUBLIC ${arg_PUBLIC} PRIVATE ${arg_PRIVATE})
  # Defined by the skillrt tree; a third-party plugin built against an installed skillrt has
  # neither and sets its own flags.
  if(TARGET skillrt::sanitizers)
    target_link_libraries(${name} PUBLIC skillrt::sanitizers)
  endif()
  if(TARGET skillrt::warnings)
    target_link_libraries(${name} PRIVATE skillrt::warnings)
  endif()
endfunction()

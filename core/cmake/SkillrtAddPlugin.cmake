# skillrt_add_plugin(<name>
#     SOURCES <file>...
#     [SCHEMAS <schema.json>...]      embedded into the plugin (skillrt_embedded_schemas.h)
#     [LIBRARIES <target>...]         linked privately
#     [OUTPUT_DIRECTORY <dir>]        where the .so goes (default: the host's plugin dir)
#     [NO_INSTALL])
#
# Builds a MODULE library with hidden visibility and -Wl,-z,defs, so a plugin that tries to use
# anything from the host fails to link: plugins see only the SDK.
include_guard(GLOBAL)


function(skillrt_add_plugin name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "NO_INSTALL" "OUTPUT_DIRECTORY" "SOURCES;SCHEMAS;LIBRARIES")
  if(NOT arg_SOURCES)
    message(FATAL_ERROR "skillrt_add_plugin(${name}): SOURCES is required")
  endif()
  add_library(${name} MODULE ${arg_SOURCES})
  set(_SKILLRT_EMBED_SCRIPT ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/SkillrtEmbedSchemas.cmake)
  set(gen_dir ${CMAKE_CURRENT_BINARY_DIR}/${name}_embedded)
  set(header ${gen_dir}/skillrt_embedded_schemas.h)
  set(schema_paths)
  foreach(schema IN LISTS arg_SCHEMAS)
    get_filename_component(abs ${schema} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    list(APPEND schema_paths ${abs})
  endforeach()
  list(JOIN schema_paths "|" schema_arg)
  add_custom_command(
    OUTPUT ${header}
    COMMAND ${CMAKE_COMMAND} "-DSKILLRT_SCHEMAS=${schema_arg}" -DSKILLRT_OUTPUT=${header}
            -P ${_SKILLRT_EMBED_SCRIPT}
    DEPENDS ${schema_paths} ${_SKILLRT_EMBED_SCRIPT}
    COMMENT "Embedding schemas into plugin ${name}"
    VERBATIM)
  target_sources(${name} PRIVATE ${header})
  target_include_directories(${name} PRIVATE ${gen_dir})
  if(TARGET skillrt::sdk)
    target_link_libraries(${name} PRIVATE skillrt::sdk)
  endif()
  if(arg_LIBRARIES)
    target_link_libraries(${name} PRIVATE ${arg_LIBRARIES})
  endif()
  set_target_properties(${name} PROPERTIES
    PREFIX ""
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    POSITION_INDEPENDENT_CODE ON)
  # Sanitizer runtimes are provided by the host executable, so -z defs cannot hold there.
  if(NOT SKILLRT_SANITIZE)
    target_link_options(${name} PRIVATE "LINKER:-z,defs")
  endif()
  if(arg_OUTPUT_DIRECTORY)
    set_target_properties(${name} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${arg_OUTPUT_DIRECTORY})
  elseif(DEFINED SKILLRT_PLUGIN_OUTPUT_DIR)
    set_target_properties(${name} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${SKILLRT_PLUGIN_OUTPUT_DIR})
  endif()
  if(NOT arg_NO_INSTALL AND DEFINED SKILLRT_INSTALL_PLUGIN_DIR)
    install(TARGETS ${name} LIBRARY DESTINATION ${SKILLRT_INSTALL_PLUGIN_DIR})
  endif()
endfunction()

# Writes a C++ source holding data/frameworks.txt (the framework table) as a string literal.
file(READ ${TABLE} content)
string(FIND "${content}" ")stoker_table\"" bad)
if(NOT bad EQUAL -1)
  message(FATAL_ERROR "${TABLE} contains the raw-string delimiter")
endif()
set(body "// Generated from data/frameworks.txt by cmake/embed_frameworks.cmake. Do not edit.\nnamespace stoker::python {\nextern const char* const kFrameworkTable;\nconst char* const kFrameworkTable = R\"stoker_table(${content})stoker_table\";\n}  // namespace stoker::python\n")
file(WRITE ${OUT}.tmp "${body}")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)

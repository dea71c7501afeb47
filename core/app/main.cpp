// Composition root: everything else lives in the seams; this only hands over to the CLI.
#include "cli/cli.hpp"

int main(int argc, char** argv) { return skillrt::cli::run(argc, argv); }

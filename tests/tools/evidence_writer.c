/* cli_evidence_write called directly with the change and checks texts given (test_evidence.sh):
   evidence_writer DIR BASELINE CANDIDATE CHANGE_JSON CHECKS_JSON. Shows what the writer does
   with a verb's malformed text (kept as a string, the contract stays valid JSON). Links the
   CLI's objects (not main.o) and the library. */
#include "evidence.h"

int main(int argc, char **argv) {
    if (argc != 6) return 2;
    cli_evidence e = {0};
    e.dir = argv[1];
    e.verb = "test";
    e.argc = argc - 1;
    e.argv = argv + 1;
    e.baseline = argv[2];
    e.candidate = argv[3];
    e.change_json = argv[4];
    e.checks_json = argv[5];
    e.runs = 1;
    return cli_evidence_write(&e);
}

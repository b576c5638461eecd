// `slabcast check SCENES.tsv --goldens DIR`: frame-dump regression of your own scenes (docs/golden-images.md).
//
// Every scene line of SCENES.tsv (NAME, a tab, the arguments of `slabcast render` without --backend and --out;
// blank lines and '#' comments skipped) is parsed as `render` parses its command line, rendered in this process
// into a temporary folder, and compared with DIR/NAME.png (and DIR/NAME.ids where it exists) within the tolerance
// of app/image_compare.h. A failing scene leaves NAME-diff.png and NAME-actual.png in --diff-dir. With --update the
// goldens are written instead (NAME.ids only where it exists), all of them landing together.
#pragma once
#include "app/options.h"

#include <iosfwd>

namespace slabcast {

// The report on `out` (a table, the failures, "N of M scenes match"), one progress line a scene on `log`.
// Returns kExitOk when every scene matches (or every golden was updated), kExitRuntime when one does not; throws
// UsageError naming SCENES.tsv (and the line) for a file that cannot be read or a line that does not parse.
int run_check(const CheckOptions& options, std::ostream& out, std::ostream& log);

}  // namespace slabcast

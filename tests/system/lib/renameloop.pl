# Tight loop of directory operations for the crash workloads, each one a
# parent pointer chain (ATTRI), faster than a shell can drive them: one
# file with 90 names, renamed back and forth between two directories.
# Its parent pointers fill a leaf block, so every rename is a longer
# chain, which a log force is likely to split.
#   perl renameloop.pl DIR SEED
use strict;
use warnings;

my ($d, $s) = @ARGV;
srand($s);
mkdir "$d/pa";
mkdir "$d/pb";
open(my $h, ">", "$d/pa/t") or die "$d/pa/t: $!\n";
close $h;
link("$d/pa/t", "$d/pa/l$_") for 0 .. 89;
for (my $i = 0; ; $i++) {
	my $k = $i % 90;
	if (int($i / 90) % 2 == 0) {
		rename("$d/pa/l$k", "$d/pb/m$k");
	} else {
		rename("$d/pb/m$k", "$d/pa/l$k");
	}
}

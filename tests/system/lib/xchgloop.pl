# Tight loop of file-range work for the "inode" crash workload, faster
# than a shell can drive it: exchange ranges between four files
# (XFS_IOC_EXCHANGE_RANGE: XMI chains), clone ranges between them
# (FICLONERANGE: BUI chains remapping extents) and overwrite shared
# blocks (CoW, remapped at writeback: BUI).  Offsets and lengths are
# block multiples within four 1 MiB files.
#   perl xchgloop.pl DIR SEED [NOPS]
use strict;
use warnings;
use Fcntl;
use IO::Handle;

my ($dir, $seed, $nops) = @ARGV;
srand($seed);
$nops //= 1e12;
# _IOW('X', 129, struct xfs_exchange_range) and _IOW(0x94, 13, struct
# file_clone_range), as the uapi headers define them on x86-64.
my $EXCHANGE_RANGE = 0x40285881;
my $FICLONERANGE = 0x4020940d;
my @fh;
for my $i (0 .. 3) {
	sysopen(my $h, "$dir/x$i", O_RDWR | O_CREAT) or die "x$i: $!\n";
	syswrite($h, chr(65 + $i) x 1048576);
	push @fh, $h;
}
for (my $n = 0; $n < $nops; $n++) {
	my ($i, $j) = (int(rand(4)), int(rand(4)));
	next if $i == $j;
	# Long ranges over fragmented files make long chains, which a
	# log force is likely to split.
	my $len = 4096 * (1 + int(rand(rand() < 0.5 ? 16 : 192)));
	my $o1 = 4096 * int(rand(256 - $len / 4096));
	my $o2 = 4096 * int(rand(256 - $len / 4096));
	my $r = rand();
	if ($r < 0.4) {
		# struct xfs_exchange_range: file1_fd, pad, file1_offset,
		# file2_offset, length, flags; called on file2.
		ioctl($fh[$j], $EXCHANGE_RANGE,
		      pack("l L Q Q Q Q", fileno($fh[$i]), 0, $o1, $o2, $len, 0));
	} elsif ($r < 0.7) {
		# struct file_clone_range: src_fd, src_offset, src_length,
		# dest_offset; called on the destination.
		ioctl($fh[$j], $FICLONERANGE, pack("q Q Q Q", fileno($fh[$i]), $o1, $len, $o2));
	} else {
		sysseek($fh[$j], $o2, 0);
		syswrite($fh[$j], chr(97 + int(rand(26))) x 4096);
		$fh[$j]->sync if rand() < 0.2;
	}
}

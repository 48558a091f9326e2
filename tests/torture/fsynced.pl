#!/usr/bin/perl
# fsynced.pl XFS_DB IMG: the files a workload fsynced are in the
# (unmounted, clean-logged) filesystem in IMG with the contents they had.
# Reads "PATH SIZE MD5" lines on stdin; prints one line per file that is
# missing, of another size or other contents, and exits 1 if there was
# one.  One xfs_db run finds each file's size and extent map; the data is
# read from IMG here (unwritten extents and holes read as zeroes).
use strict;
use warnings;
use Digest::MD5 qw(md5_hex);

my ($xfs_db, $img) = @ARGV;
die "usage: fsynced.pl XFS_DB IMG < list\n" unless defined $img;
my @want;
while (<STDIN>) {
	my ($path, $size, $md5) = split;
	next unless defined $md5;
	die "fsynced.pl: bad path $path\n" unless $path =~ m{^/[A-Za-z0-9_./-]+$};
	push @want, [$path, $size, $md5];
}
exit 0 unless @want;

my @args = ('-r', '-c', 'sb 0', '-c', 'print blocksize agblocks');
for my $w (@want) {
	push @args, '-c', "echo \@\@ $w->[0]", '-c', "path $w->[0]",
		'-c', 'print core.size', '-c', 'bmap';
}
open(my $db, '-|', 'sh', '-c', 'exec "$0" "$@" 2>&1', $xfs_db, @args, $img)
	or die "fsynced.pl: cannot run $xfs_db\n";
my ($bs, $agblocks, $cur, %info);
while (<$db>) {
	chomp;
	if (/^blocksize = (\d+)/) { $bs = $1; next }
	if (/^agblocks = (\d+)/) { $agblocks = $1; next }
	if (/^\@\@ (\S+)\s*$/) { $cur = $1; $info{$cur} = { ext => [] }; next }
	next unless defined $cur;
	my $i = $info{$cur};
	if (/^core\.size = (\d+)/ && !$i->{err}) { $i->{size} = $1; next }
	if (/^data offset (\d+) startblock \d+ \((\d+)\/(\d+)\) count (\d+) flag (\d+)/) {
		push @{$i->{ext}}, [$1, $2, $3, $4, $5] unless $i->{err};
		next;
	}
	# anything else between the echo and the size: the lookup failed
	$i->{err} = $_ unless exists $i->{size};
}
close($db);
die "fsynced.pl: no geometry from xfs_db\n" unless $bs && $agblocks;

open(my $fh, '<:raw', $img) or die "fsynced.pl: $img: $!\n";
my $bad = 0;
for my $w (@want) {
	my ($path, $size, $md5) = @$w;
	my $i = $info{$path};
	if (!$i || $i->{err} || !defined $i->{size}) {
		printf "missing %s (%s)\n", $path, $i && $i->{err} ? $i->{err} : 'no answer';
		$bad++;
		next;
	}
	if ($i->{size} != $size) {
		printf "size %s: %d, fsynced %d\n", $path, $i->{size}, $size;
		$bad++;
		next;
	}
	my $data = "\0" x $size;
	for my $e (@{$i->{ext}}) {
		my ($off, $ag, $agb, $cnt, $flag) = @$e;
		next if $flag;		# unwritten: zeroes
		my $at = $off * $bs;
		next if $at >= $size;
		my $len = $cnt * $bs;
		$len = $size - $at if $at + $len > $size;
		my $buf = '';
		sysseek($fh, ($ag * $agblocks + $agb) * $bs, 0) or die "seek: $!\n";
		my $n = sysread($fh, $buf, $len);
		die "fsynced.pl: short read of $path\n" unless defined $n && $n == $len;
		substr($data, $at, $len) = $buf;
	}
	if (md5_hex($data) ne $md5) {
		printf "contents %s: md5 %s, fsynced %s\n", $path, md5_hex($data), $md5;
		$bad++;
	}
}
exit($bad ? 1 : 0);

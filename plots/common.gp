# SPDX-License-Identifier: GPL-2.0-or-later
# common.gp - what every figure shares: category names and colours (one
# colour per category, the same in every figure), fonts and the two
# output formats.  wcanalyze copies this file into every .gp script it
# writes, after the figure's variables and before the figure's template.
#
# Colours are the Okabe-Ito palette, chosen to stay distinct for readers
# with colour-blindness; flushes get the strongest one.  The order is the
# order of enum wc_cat (analyze/lib/model/classify.h).
catname = "flush journal metadata data_read data_write discard other"
catcolor = "#D55E00 #7B3294 #CC79A7 #0072B2 #009E73 #56B4E9 #999999"
idlecolor = "#D9D9D9"
# The drive's destage of no request (a model disk's ledger): busy, no
# category's.
destagecolor = "#E69F00"
cname(k) = word(catname, k + 1)
ccolor(k) = word(catcolor, k + 1)
# Captures overlaid in one figure: told apart by colour, then dash; the
# legend names them.
seriescolor = "#000000 #E69F00 #0072B2 #009E73 #D55E00 #CC79A7 #56B4E9 #999999 #7B3294 #8C510A #01665E #F0E442"
scolor(i) = word(seriescolor, (i - 1) % words(seriescolor) + 1)
# Phases are shades of grey so that no phase looks like a category.
phasecolor = "#303030 #8C8C8C #C4C4C4 #000000 #606060 #A8A8A8 #E0E0E0"
pcolor(i) = word(phasecolor, (i - 1) % words(phasecolor) + 1)
# Heat maps: requests a cell from light (one) to dark (the most), yellow
# to dark red, so that a single request stays visible on white and the
# percentile lines (black, blue, purple) stand out on every shade.
heatpalette = 'set palette defined (0 "#FED976", 1 "#FD8D3C", 2 "#E31A1C", 3 "#800026")'
fontspec = "DejaVu Sans,11"

# Names such as data_read must print as they are, not as subscripts.
set termoption noenhanced
set encoding utf8

# eval outcmd(fmt, w, h): switch to fmt ("png" or "svg") at w x h pixels
# and write to the file named by the variable out plus ".png" or ".svg".
formats = exists("formats") ? formats : "png svg"
# outdir: the folder the files go in, with a trailing slash; this folder
# unless set (wcanalyze renders into a fresh folder of its own that no
# one can have planted a link in, then moves the files here).
outdir = exists("outdir") ? outdir : ""
outcmd(fmt, w, h) = (fmt eq "png" ? \
	sprintf("set terminal pngcairo noenhanced size %d,%d font '%s'", w, h, fontspec) : \
	sprintf("set terminal svg noenhanced size %d,%d font '%s' background '#ffffff'", w, h, fontspec)) . \
	sprintf("; set output '%s%s.%s'", outdir, out, fmt)
# Sum of the columns base + k for the first i categories of the list.
cum(list, i, base) = (i < 1) ? 0 : sum [j=1:i] column(base + word(list, j))

// Table Companion enclosure: shared parameters. Every length is in millimetres, every angle in
// degrees. Override any of them on the command line, e.g.
//   openscad -D wall=3 -D 'servo_model="mg90s"' -o lid.stl box.scad
// The disc's minute steps must match the pin map (hardware/pinmap.toml [servo]
// degrees_per_minute): the tests pass the pin map's value with -D.

/* [Game] */
minutes = 5;                  // each player's allowance at the start (5 in the rulebook)
degrees_per_minute = 18;      // pin map [servo] degrees_per_minute
disc_direction = 1;           // 1: a larger servo angle turns the disc counter-clockwise seen from above; -1: clockwise

/* [Box] */
wall = 2.4;                   // wall, floor and lid thickness
box_length = 240;             // along the players' axis: blue end (-x) to red end (+x)
box_depth = 150;              // front (-y, the OLED) to back (+y)
box_height = 60;              // outside, without the lid
corner_radius = 6;
lid_gap = 0.3;                // fit clearance of the lid's lip inside the walls

/* [Buttons] */
button_hole = 46;             // panel hole of the big player buttons (60 mm arcade buttons: 46)
button_bezel = 60;            // outside diameter of the button's bezel on the lid
challenge_hole = 28;          // panel hole of the challenge button (30 mm arcade button: 28)
margin = 5;                   // least material between two holes or a hole and an edge

/* [Raspberry Pi] */
pi_model = "pi4_5";           // pi4_5 (Pi 4 B or Pi 5: holes 58 x 49) or zero2w (Zero 2 W: holes 58 x 23)

/* [OLED] */
oled_model = "ssd1306_096";   // ssd1306_096 (0.96 inch) or sh1106_130 (1.3 inch)
second_oled = false;          // a second OLED window beside the first (display2 in the pin map)

/* [Servo] */
servo_model = "sg90";         // sg90, mg90s or mg996r
disc_gap = 1.5;               // between the disc's top face and the lid's underside

/* [Disc] */
disc_radius = 50;
disc_thickness = 3;
number_size = 6;              // cap height of the minute numbers
number_depth = 0.8;           // how deep the numbers are sunk into the disc (paint or inlays)
blue_ring = 42;               // radius of the blue numbers (shown in the blue window, -x)
red_ring = 31;                // radius of the red numbers (shown in the red window, +x)
window = [9, 9.5];             // the windows in the lid over the numbers: [radial, along the ring]
horn_pocket = 1.5;            // how deep the servo horn sits in the disc's underside

/* [Camera arm] */
board_size = 320;             // outside size of the Iago board (11 x 11 cells and its rim)
board_margin = 15;            // the camera sees this much table around the board
camera_model = "module3_wide"; // module3_wide (102 x 67 degrees; a 290 mm upright) or module3 (66 x 41; 494 mm)
rod = 8;                      // diameter of the arm's rods (aluminium or wooden dowel)
foot_gap = 20;                // from the foot's rod to the board's edge
board_thickness = 15;         // the Iago board's height above the table

$fn = 48;

// --- part tables ---------------------------------------------------------------------------
// OLED modules: [board width, board height, hole spacing x, hole spacing y, hole diameter,
//                visible area width, visible area height, visible area offset from board centre y]
function oled(model) =
    model == "sh1106_130" ? [35.4, 33.5, 30.4, 28.0, 2.5, 29.4, 14.7, 1.5] :
    [27.3, 27.8, 23.3, 23.8, 2.2, 21.7, 10.9, 1.0];   // ssd1306_096

// servos: [body length, body width, body height, length over the tabs, tab thickness,
//          height of the tabs' underside above the body's bottom, shaft offset from the body's
//          centre along the length, height of the horn's top above the body's bottom,
//          tab screw spacing, horn diameter]
function servo(model) =
    model == "mg996r" ? [40.7, 19.7, 36.8, 54.0, 2.5, 26.6, 10.2, 46.5, 48.4, 24.0] :
    model == "mg90s" ? [22.8, 12.2, 22.5, 32.5, 2.5, 16.0, 5.5, 29.5, 27.8, 20.0] :
    [22.5, 12.2, 22.7, 32.2, 2.5, 15.9, 5.35, 29.0, 27.5, 20.0];  // sg90

// Raspberry Pi boards: [board length, board width, hole spacing x, hole spacing y]; the M2.5
// holes' centres are 3.5 mm from the board's edges on both (Raspberry Pi mechanical drawings:
// Pi 4 B / Pi 5 85 x 56, holes 58 x 49; Zero 2 W 65 x 30, holes 58 x 23)
function pi_dims(model) =
    model == "zero2w" ? [65, 30, 58, 23] :
    [85, 56, 58, 49];  // pi4_5

// Camera Module 3: board 25 x 24, M2 holes 21 x 12.5 apart, 2 mm from the top and side edges,
// the lens 9.5 mm from the top edge; field of view [horizontal, vertical] in degrees
camera_board = [25, 24];
camera_holes = [21, 12.5];
camera_lens_from_top = 9.5;
function camera_fov(model) = model == "module3_wide" ? [102, 67] : [66, 41];

// --- derived layout (shared by the box, the servo mount and the disc) -------------------------
inner_length = box_length - 2 * wall;
inner_depth = box_depth - 2 * wall;
oled_board = oled(oled_model);
// the disc sits towards the back, the OLED at the front
disc_centre = [0, box_depth / 2 - wall - disc_radius - 2];
oled_centre_y = -box_depth / 2 + wall + margin + oled_board[1] / 2;
blue_button_x = -box_length / 2 + margin + button_bezel / 2;
red_button_x = -blue_button_x;
challenge_xy = [0, oled_centre_y];
// the lid's underside, from the bottom of the box
lid_underside = box_height;
disc_top = lid_underside - disc_gap;
disc_bottom = disc_top - disc_thickness;
// blue window at -x, red window at +x, on the disc's axis line
blue_window = [disc_centre[0] - blue_ring, disc_centre[1]];
red_window = [disc_centre[0] + red_ring, disc_centre[1]];
challenge_bezel = challenge_hole + 5;
// the front strip between the big buttons: the OLED(s) from the left, the challenge button right
front_left = blue_button_x + button_bezel / 2 + margin;
challenge_x = red_button_x - button_bezel / 2 - margin - challenge_bezel / 2;
oled_xs = second_oled
    ? [front_left + oled_board[0] / 2, front_left + 1.5 * oled_board[0] + margin]
    : [front_left + oled_board[0] / 2];
